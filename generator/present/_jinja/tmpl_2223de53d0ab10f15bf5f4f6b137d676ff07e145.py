from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s5_training.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_training = resolve('training')
    l_0_ch = resolve('ch')
    l_0_facts = resolve('facts')
    l_0_fx = resolve('fx')
    l_0_range = resolve('range')
    l_0_frame = resolve('frame')
    l_0_sc = resolve('sc')
    l_0_GPU = resolve('GPU')
    l_0_figs = resolve('figs')
    l_0_training_lines = resolve('training_lines')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['device']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'device' found.")
    try:
        t_2 = environment.filters['gib']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'gib' found.")
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_4 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_5 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s5_training.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s5_training.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s5_training.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s5_training.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<section id="s5">\n<h2>'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's5'))
        yield '. Training lacks something else</h2>\n'
        if t_5(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_share')):
            pass
            yield "<p data-static>Training does 6N<sub>a</sub> FLOPs per token (forward 2N<sub>a</sub>, backward 4N<sub>a</sub>: each token computes\nwith its routed experts only) and moves all N weights, every expert, about three times per micro-batch, so its\nweight-reuse intensity is the micro-batch size times N<sub>a</sub> / N in 16-bit weights, not the micro-batch size that chapter 3's\n2T/b counts against every weight. Its problem is memory capacity, not bandwidth.</p>\n"
        else:
            pass
            yield '<p data-static>Training does 6N FLOPs per token (forward 2N, backward 4N) and moves the weights about three times per micro-batch, so its\nweight-reuse intensity is the micro-batch size in 16-bit weights. Its problem is memory capacity, not bandwidth.</p>\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'train_iw')))
        yield '\n<div class="scroll"><table><thead>\n<tr><th>state</th>'
        for l_1_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
            _loop_vars = {}
            pass
            yield '<th class="n">'
            yield escape(environment.getattr(l_1_tr, 'recipe'))
            yield ' ('
            yield escape(t_4(environment.getattr(l_1_tr, 'bytes_per_param')))
            yield ' B/param)</th>'
        l_1_tr = missing
        yield '</tr></thead><tbody>\n'
        for l_1_i in context.call((undefined(name='range') if l_0_range is missing else l_0_range), t_3(environment.getattr(environment.getitem((undefined(name='training') if l_0_training is missing else l_0_training), 0), 'parts'))):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getitem(environment.getitem(environment.getattr(environment.getitem((undefined(name='training') if l_0_training is missing else l_0_training), 0), 'parts'), l_1_i), 0))
            for l_2_tr in (undefined(name='training') if l_0_training is missing else l_0_training)[1:]:
                _loop_vars = {}
                pass
                if (environment.getitem(environment.getitem(environment.getattr(l_2_tr, 'parts'), l_1_i), 0) != environment.getitem(environment.getitem(environment.getattr(environment.getitem((undefined(name='training') if l_0_training is missing else l_0_training), 0), 'parts'), l_1_i), 0)):
                    pass
                    yield ' / '
                    yield escape(environment.getitem(environment.getitem(environment.getattr(l_2_tr, 'parts'), l_1_i), 0))
            l_2_tr = missing
            yield '</td>\n'
            for l_2_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
                _loop_vars = {}
                pass
                yield '<td class="n" data-static>'
                yield escape(t_2(environment.getitem(environment.getitem(environment.getattr(l_2_tr, 'parts'), l_1_i), 1)))
                yield '</td>'
            l_2_tr = missing
            yield '</tr>\n'
        l_1_i = missing
        yield '<tr><th>total (before activations)</th>'
        for l_1_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
            l_1_q = resolve('q')
            _loop_vars = {}
            pass
            yield '<th class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'training_state_bytes', 'gb', recipe=environment.getattr(l_1_tr, 'recipe'), _loop_vars=_loop_vars))
            yield ' = '
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'training_state_bytes', 'gib', recipe=environment.getattr(l_1_tr, 'recipe'), _loop_vars=_loop_vars))
            yield '</th>'
        l_1_tr = l_1_q = missing
        yield '</tr>\n<tr data-static><td>fits in '
        yield escape(t_2((environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'capacity') if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card') else environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'capacity'))))
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'):
            pass
            yield ' ('
            yield escape(t_1('one card', (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)))
            yield ')'
        yield '?</td>'
        for l_1_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
            _loop_vars = {}
            pass
            yield '<td class="n">'
            if environment.getattr(l_1_tr, 'fits'):
                pass
                yield '<span class="ok">yes</span>'
            else:
                pass
                yield '<span class="bad">no</span>: '
                yield escape(t_1(markup_join((environment.getattr(l_1_tr, 'cards_needed'), ' cards', )), (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)))
                yield "' memory"
            yield '</td>'
        l_1_tr = missing
        yield '</tr>\n</tbody></table></div>\n<p class="meta">'
        for l_1_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
            _loop_vars = {}
            pass
            yield escape(environment.getattr(l_1_tr, 'recipe'))
            yield ': '
            yield escape(environment.getattr(l_1_tr, 'source'))
            yield '. '
        l_1_tr = missing
        yield '</p>\n'
        for l_1_tr in (undefined(name='training') if l_0_training is missing else l_0_training):
            _loop_vars = {}
            pass
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getitem((undefined(name='fx') if l_0_fx is missing else l_0_fx), markup_join(('train_', environment.getattr(l_1_tr, 'recipe'), ))), _loop_vars=_loop_vars))
        l_1_tr = missing
        yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig5-memory-ledger'))
        yield '\n<div data-prose="training_lines">'
        for l_1_line in (undefined(name='training_lines') if l_0_training_lines is missing else l_0_training_lines):
            _loop_vars = {}
            pass
            yield '<p>'
            yield escape(l_1_line)
            yield '</p>'
        l_1_line = missing
        yield '</div>\n<p>Capacity and bandwidth are different limits with different remedies: what does not fit is sharded (ZeRO, FSDP),\noffloaded or compressed; what cannot be moved fast enough needs fewer bytes per step or more tokens per byte.\nActivations come on top, linear in batch and sequence with FlashAttention-style kernels.</p>\n</section>\n'
    yield '\n'

blocks = {}
debug_info = '1=52&2=64&4=67&5=69&12=75&14=77&15=87&16=91&17=101&19=111&20=122&22=144&23=153&24=158&25=160'