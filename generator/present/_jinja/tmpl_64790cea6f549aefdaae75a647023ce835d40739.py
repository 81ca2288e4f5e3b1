from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s3_modes.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_figs = resolve('figs')
    l_0_training = resolve('training')
    l_0_prefill = resolve('prefill')
    l_0_w = resolve('w')
    l_0_precision = resolve('precision')
    l_0_facts = resolve('facts')
    l_0_q = resolve('q')
    l_0_gemm_rows = resolve('gemm_rows')
    l_0_g = resolve('g')
    l_0_verdicts = resolve('verdicts')
    l_0_sc = resolve('sc')
    l_0_batch1_links = resolve('batch1_links')
    l_0_GPU = resolve('GPU')
    l_0_ch = resolve('ch')
    l_0_prefill_lines = resolve('prefill_lines')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_2 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_3 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s3_modes.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'g': l_0_g, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s3_modes.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s3_modes.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s3_modes.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s3">\n<h2>3. Three modes, three orders of magnitude</h2>\n<p>Decode, prefill and training load the same weights. What differs is how many tokens one load serves.</p>\n'
    yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig2-three-modes'))
    yield '\n<div class="scroll"><table><thead>\n<tr><th></th>'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<th>training</th>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<th>prefill</th>'
    yield '<th>decode (batch 1)</th></tr></thead><tbody>\n<tr><td>tokens per weight load</td>'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<td class="n" data-static>the micro-batch, '
        yield escape(t_1(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'training_tokens')))
        yield '</td>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<td class="n" data-static>the prompt, '
        l_1_loop = missing
        for l_1_t, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'), undefined):
            _loop_vars = {}
            pass
            yield escape(t_1(l_1_t))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ' / '
        l_1_loop = l_1_t = missing
        yield '</td>'
    yield '<td class="n">1</td></tr>\n<tr><td data-static>weight-reuse intensity ('
    yield escape(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weights'))
    yield ', upper bound)</td>'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        if (t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_share')) and (not t_4(context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'training_weight_reuse')))):
            pass
            yield '<td class="n" data-static>'
            yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_weight_reuse')))
        else:
            pass
            yield '<td class="n">'
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'training_weight_reuse_intensity', 'num', tokens=environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'training_tokens')))
        if (environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes') != 2):
            pass
            yield ' (bf16 weights)'
        yield '</td>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<td class="n">'
        l_1_loop = missing
        for l_1_t, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'), undefined):
            _loop_vars = {}
            pass
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'weight_reuse_intensity', 'num', tokens=l_1_t, _loop_vars=_loop_vars))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ' / '
        l_1_loop = l_1_t = missing
        yield '</td>'
    yield '  <td class="n">'
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'weight_reuse_intensity', 'num', tokens=1))
    yield '</td></tr>\n'
    if t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_share')):
        pass
        yield "<tr><td>a routed expert's weight-reuse intensity (a load serves T k / E tokens)</td>"
        if (undefined(name='training') if l_0_training is missing else l_0_training):
            pass
            yield '<td class="n">'
            if t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_routed_weight_reuse')):
                pass
                yield '<span data-fact="training_routed_weight_reuse">'
                yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_routed_weight_reuse')))
                yield '</span>'
                if (environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes') != 2):
                    pass
                    yield ' (bf16 weights)'
            else:
                pass
                yield '—'
            yield '</td>'
        if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
            pass
            yield '<td class="n">'
            l_1_loop = missing
            for l_1_v, l_1_loop in LoopContext(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_weight_reuse'), undefined):
                _loop_vars = {}
                pass
                yield '<span data-fact="routed_weight_reuse_'
                yield escape(environment.getitem(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'), environment.getattr(l_1_loop, 'index0')))
                yield '">'
                yield escape(t_2(l_1_v))
                yield '</span>'
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield ' / '
            l_1_loop = l_1_v = missing
            yield '</td>'
        yield '  <td class="n">—</td></tr>\n'
    if (undefined(name='gemm_rows') if l_0_gemm_rows is missing else l_0_gemm_rows):
        pass
        l_0_g = environment.getitem((undefined(name='gemm_rows') if l_0_gemm_rows is missing else l_0_gemm_rows), 0)
        context.vars['g'] = l_0_g
        context.exported_vars.add('g')
        yield '<tr><td data-static>with activations ('
        yield escape(t_1(environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'n')))
        yield ' × '
        yield escape(t_1(environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'm')))
        yield ' matrix)</td>\n'
        if (undefined(name='training') if l_0_training is missing else l_0_training):
            pass
            if ((environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes') != 2) and (not t_4(context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'training_gemm_intensity')))):
                pass
                yield '<td class="n" data-static>'
                yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_gemm_intensity')))
                yield ' (bf16 weights)</td>'
            else:
                pass
                yield '<td class="n">'
                yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'gemm_intensity', 'num', n=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'n'), m=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'm'), tokens=environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'training_tokens')))
                yield '</td>'
        if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
            pass
            yield '<td class="n">'
            l_1_loop = missing
            for l_1_t, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'), undefined):
                _loop_vars = {}
                pass
                yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'gemm_intensity', 'num', n=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'n'), m=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'm'), tokens=l_1_t, _loop_vars=_loop_vars))
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield ' / '
            l_1_loop = l_1_t = missing
            yield '</td>'
        yield '  <td class="n">'
        yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'gemm_intensity', 'num', n=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'n'), m=environment.getattr((undefined(name='g') if l_0_g is missing else l_0_g), 'm'), tokens=1))
        yield '</td></tr>\n'
    yield '<tr data-static><td>against the ridge '
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'ridge_point', 'num'))
    yield '</td>\n'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<td>'
        if (t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_share')) and (not t_4(context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'training_weight_reuse')))):
            pass
            yield escape(('right' if (environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_weight_reuse') >= environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'training_ridge')) else 'left'))
            if t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_routed_weight_reuse')):
                pass
                yield '; routed experts '
                yield escape(('right' if (environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'training_routed_weight_reuse') >= environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'training_ridge')) else 'left'))
        else:
            pass
            yield escape(('right' if (environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'training_intensity') >= environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'training_ridge')) else 'left'))
        yield '</td>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<td>'
        l_1_loop = missing
        for l_1_v, l_1_loop in LoopContext(environment.getattr((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill), 'weight_reuse_intensity'), undefined):
            _loop_vars = {}
            pass
            yield escape(('right' if (l_1_v >= environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'ridge_point')) else 'left'))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ' / '
        l_1_loop = l_1_v = missing
        if t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_weight_reuse')):
            pass
            yield '; routed experts '
            l_1_loop = missing
            for l_1_v, l_1_loop in LoopContext(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'routed_weight_reuse'), undefined):
                _loop_vars = {}
                pass
                yield escape(('right' if (l_1_v >= environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'ridge_point')) else 'left'))
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield ' / '
            l_1_loop = l_1_v = missing
        yield '</td>'
    yield '  <td>left, '
    yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'ridge_reuses')))
    yield '× below</td></tr>\n<tr data-static><td>what caps performance</td>\n'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<td>'
        yield escape(environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'training_binds'))
        yield '</td>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<td>'
        l_1_loop = missing
        for l_1_v, l_1_loop in LoopContext(environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'prefill_binds'), undefined):
            _loop_vars = {}
            pass
            yield escape(l_1_v)
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ' / '
        l_1_loop = l_1_v = missing
        yield '</td>'
    yield '  <td>'
    yield escape(('bandwidth' if (environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'weight_stream_time') >= environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'weight_flops_time')) else 'compute'))
    if (undefined(name='batch1_links') if l_0_batch1_links is missing else l_0_batch1_links):
        pass
        yield ' of the '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield "'s two roofs; the interconnect at this layout"
        if (environment.getitem((undefined(name='batch1_links') if l_0_batch1_links is missing else l_0_batch1_links), 0) < environment.getitem((undefined(name='batch1_links') if l_0_batch1_links is missing else l_0_batch1_links), 1)):
            pass
            yield ' at '
            yield escape(environment.getitem((undefined(name='batch1_links') if l_0_batch1_links is missing else l_0_batch1_links), 0))
            yield ' of the '
            yield escape(environment.getitem((undefined(name='batch1_links') if l_0_batch1_links is missing else l_0_batch1_links), 1))
            yield ' contexts'
        yield ' (chapter '
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield ')'
    yield '</td></tr>\n<tr><td>largest memory consumer</td>'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<td>optimizer state + activations</td>'
    if (not t_4((undefined(name='prefill') if l_0_prefill is missing else l_0_prefill))):
        pass
        yield '<td>weights + activations</td>'
    yield '<td>weights + KV cache</td></tr>\n</tbody></table></div>\n'
    yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig3-intensity-ruler'))
    yield '\n<ul class="lines" data-prose="prefill_lines">'
    for l_1_line in (undefined(name='prefill_lines') if l_0_prefill_lines is missing else l_0_prefill_lines):
        _loop_vars = {}
        pass
        yield '<li>'
        yield escape(l_1_line)
        yield '</li>'
    l_1_line = missing
    yield '</ul>\n</section>\n\n'

blocks = {}
debug_info = '1=51&5=64&7=66&8=73&9=78&10=92&11=108&12=122&13=124&14=127&15=142&18=160&19=162&20=166&21=170&22=182&23=196&25=199&26=201&27=215&28=241&30=243&31=248&32=262&33=279&34=282&36=286&37=288'