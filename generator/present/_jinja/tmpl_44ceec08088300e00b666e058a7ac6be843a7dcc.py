from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s4_batching.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_fx = resolve('fx')
    l_0_model = resolve('model')
    l_0_facts = resolve('facts')
    l_0_precision = resolve('precision')
    l_0_frame = resolve('frame')
    l_0_sc = resolve('sc')
    l_0_GPU = resolve('GPU')
    l_0_par = resolve('par')
    l_0_attention_text = resolve('attention_text')
    l_0_capacity_fact = resolve('capacity_fact')
    l_0_bounded_fact = resolve('bounded_fact')
    l_0_ctxs = resolve('ctxs')
    l_0_figs = resolve('figs')
    l_0_context_lines = resolve('context_lines')
    l_0_critical_fact = resolve('critical_fact')
    l_0_w = resolve('w')
    l_0_ch = resolve('ch')
    l_0_decode_table = resolve('decode_table')
    l_0_r = resolve('r')
    l_0_last_ctx = resolve('last_ctx')
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
        t_3 = environment.filters['params']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'params' found.")
    try:
        t_4 = environment.filters['size']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'size' found.")
    try:
        t_5 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_6 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s4_batching.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s4_batching.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s4_batching.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s4_batching.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s4">\n<h2>4. Why batching only saves half</h2>\n<p>A decode step moves two kinds of bytes. The weights are shared by the whole batch, so their intensity grows with B.\nThe KV cache is private to each sequence, so its intensity does not.</p>\n'
    if t_5(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'kv')):
        pass
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'kv')))
    else:
        pass
        yield '<p data-static>Multi-head latent attention caches, per token and layer, one compressed latent of '
        yield escape(environment.getattr(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'attention'), 'kv_lora_rank'))
        yield '\nelements and a RoPE key of '
        yield escape(environment.getattr(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'attention'), 'qk_rope_head_dim'))
        yield ': c = L (r + ρ) b<sub>kv</sub> =\n'
        yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'layers'))
        yield ' × '
        yield escape(t_1(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'mla_cache_width')))
        yield ' × '
        yield escape(t_2(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'kv_bytes')))
        yield ' =\n'
        yield escape(t_1((environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'kv_card') if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many') else environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'kv_bytes_per_token'))))
        yield ' B'
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many') and (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'kv_card') != environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'kv_bytes_per_token'))):
            pass
            yield ' for\nthe whole model, of which one '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' caches c<sub>g</sub> = '
            yield escape(t_1(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'kv_bytes_per_token')))
            yield ' B ('
            if ((undefined(name='par') if l_0_par is missing else l_0_par) and (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'pp') > 1)):
                pass
                yield "the layers of the stage that holds the fewest tokens; chapter 1's slice is the time formulas' even split"
            else:
                pass
                yield "chapter 1's slice"
            yield ')'
        yield '. With the projections absorbed, each cached token costs 2 H<sub>q</sub> (2r + ρ) FLOPs per\nlayer, which the formulas count as an effective head dimension d<sub>h</sub> = (2r + ρ)/2 = '
        yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'effective_head_dim')))
        yield '.</p>\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'ikv')))
    yield '\n<p data-prose="attention_text">'
    yield escape((undefined(name='attention_text') if l_0_attention_text is missing else l_0_attention_text))
    yield '</p>\n'
    if t_5(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'intensity')):
        pass
        yield "<p>Both terms together give the step's intensity, its ceiling as the batch grows, the critical context where that ceiling\nmeets the ridge, and the batch that crosses the ridge at a given context — each derived by SymPy from the one before:</p>\n"
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'intensity')))
        yield '\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'ceiling')))
        yield '\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'critical')))
        yield '\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'crossover')))
        yield '\n<h3>The capacity ledger</h3>\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'cap_tokens')))
        yield '\n<p data-prose="capacity_fact">'
        yield escape((undefined(name='capacity_fact') if l_0_capacity_fact is missing else l_0_capacity_fact))
        yield '</p>\n'
        if (undefined(name='bounded_fact') if l_0_bounded_fact is missing else l_0_bounded_fact):
            pass
            yield '<p data-static>'
            yield escape((undefined(name='bounded_fact') if l_0_bounded_fact is missing else l_0_bounded_fact))
            yield '</p>'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'cap_batch')))
        yield '\n<div class="scroll"><table><thead>\n<tr><th class="n">context</th><th class="n">ceiling</th><th class="n">batch to cross the ridge</th><th class="n">sequences that fit'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield ' per replica'
        yield '</th><th class="n">intensity there</th></tr></thead><tbody data-rows="context">\n'
        for l_1_s in (undefined(name='ctxs') if l_0_ctxs is missing else l_0_ctxs):
            l_1_q = resolve('q')
            _loop_vars = {}
            pass
            yield '<tr data-row="'
            yield escape(l_1_s)
            yield '"><td class="n"><span data-param="context">'
            yield escape(t_1(l_1_s))
            yield '</span></td><td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'decode_intensity_ceiling', 'num', context=l_1_s, _loop_vars=_loop_vars))
            yield '</td>\n<td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'crossover_batch', 'nearest', 'never', context=l_1_s, _loop_vars=_loop_vars))
            yield '</td>\n<td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'capacity_batch', 'integer', '— (no KV cache fits)', context=l_1_s, _loop_vars=_loop_vars))
            yield '</td><td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'intensity_at_capacity', 'num', '— (none fits)', context=l_1_s, _loop_vars=_loop_vars))
            yield '</td></tr>\n'
        l_1_s = l_1_q = missing
        yield '</tbody></table></div>\n'
        yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig4-decode-intensity'))
        yield '\n<ul class="lines" data-prose="context_lines">'
        for l_1_line in (undefined(name='context_lines') if l_0_context_lines is missing else l_0_context_lines):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(l_1_line)
            yield '</li>'
        l_1_line = missing
        yield '</ul>\n<p data-prose="critical_fact">'
        yield escape((undefined(name='critical_fact') if l_0_critical_fact is missing else l_0_critical_fact))
        yield '</p>\n<p>These intensities exclude activation traffic'
        if environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'activation_bytes'):
            pass
            yield ' except the '
            yield escape(t_4(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'activation_bytes')))
            yield ' per sequence the spec declares'
        yield ':\nthey are upper bounds. Runtime activations, workspace and paging metadata also take memory, so fewer sequences fit than the ledger says.</p>\n<h3>Decode token/s bound, by batch and context</h3>\n<p>The step takes at least the larger of its two lower bounds; B sequences each get one token per step.'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield '<span data-static> On '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
            yield ' the formula gives one '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s ledgers without the links; the table states each replica's token/s at\nthe strict bound of a round, the largest of one "
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s compute, HBM and interconnect ledgers through the pipeline\n(chapter "
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
            yield ')'
            if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp') > 1):
                pass
                yield ', B sequences per data-parallel replica ('
                yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
                yield ' B on all '
                yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'gpus'))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's)'
            yield '.</span>'
        yield '</p>\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tps')))
        yield '\n<div class="scroll"><table><thead>\n<tr data-cols="context"><th class="n">batch'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield ' per replica'
        yield '</th>'
        for l_1_s in (undefined(name='ctxs') if l_0_ctxs is missing else l_0_ctxs):
            _loop_vars = {}
            pass
            yield '<th class="n" data-col="'
            yield escape(l_1_s)
            yield '" data-label="context ">context '
            yield escape(t_1(l_1_s))
            yield '</th>'
        l_1_s = missing
        yield '</tr></thead><tbody data-rows="batch">\n'
        l_1_loop = missing
        for l_1_row, l_1_loop in LoopContext((undefined(name='decode_table') if l_0_decode_table is missing else l_0_decode_table), undefined):
            _loop_vars = {}
            pass
            yield '<tr data-cols="context" data-row="'
            yield escape(environment.getattr(l_1_row, 'batch'))
            yield '"><td class="n"><span data-param="batch">'
            yield escape(t_1(environment.getattr(l_1_row, 'batch')))
            yield '</span></td>'
            l_2_loop = missing
            for l_2_c, l_2_loop in LoopContext(environment.getattr(l_1_row, 'cells'), undefined):
                l_2_q = resolve('q')
                l_2_s = missing
                _loop_vars = {}
                pass
                l_2_s = environment.getitem((undefined(name='ctxs') if l_0_ctxs is missing else l_0_ctxs), environment.getattr(l_2_loop, 'index0'))
                _loop_vars['s'] = l_2_s
                yield '<td class="n" data-col="'
                yield escape((undefined(name='s') if l_2_s is missing else l_2_s))
                yield '" data-cell="decode" data-batch="'
                yield escape(environment.getattr(l_1_row, 'batch'))
                yield '" data-context="'
                yield escape((undefined(name='s') if l_2_s is missing else l_2_s))
                yield '">'
                if (not t_6(environment.getattr(l_2_c, 'tps'))):
                    pass
                    yield escape(context.call((undefined(name='q') if l_2_q is missing else l_2_q), 'decode_tokens_per_s', 'num', batch=environment.getattr(l_1_row, 'batch'), context=(undefined(name='s') if l_2_s is missing else l_2_s), _loop_vars=_loop_vars))
                    yield ' tok/s '
                    yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), environment.getattr(l_2_c, 'binds'), _loop_vars=_loop_vars))
                else:
                    pass
                    yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), 'capacity', _loop_vars=_loop_vars))
                    yield ' does not fit'
                yield '</td>'
            l_2_loop = l_2_c = l_2_s = l_2_q = missing
            yield '</tr>\n'
        l_1_loop = l_1_row = missing
        yield '</tbody></table></div>\n'
        yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig7-serving'))
        yield '\n'
        if t_5(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'exact_tmem')):
            pass
            yield '<h3>Two accountings</h3>\n<p data-static>'
            if (environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe') and environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'declared_active')):
                pass
                yield "Seed 003's accounting takes the declared counts: N = "
                yield escape(t_3(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'parameters')))
                yield " parameters, of which a step reads\nthe experts its tokens touch (at batch 1 one token's, the N<sub>a</sub> = "
                yield escape(t_3(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'declared_active')))
                yield ' active). Counted per matrix,'
            else:
                pass
                yield "Seed 003's accounting reads all N = "
                yield escape(t_3(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'parameters')))
                yield ' parameters every step. Counted per matrix,'
            yield ' the input embedding is a\nlookup of B rows, not a full read, and the norms and output head are counted separately ('
            yield escape(t_1(environment.getattr(environment.getattr((undefined(name='r') if l_0_r is missing else l_0_r), 'params'), 'total')))
            yield ' parameters from\nthe shapes). At batch 1 and context '
            yield escape(t_1((undefined(name='last_ctx') if l_0_last_ctx is missing else l_0_last_ctx)))
            yield ':</p>\n'
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'seed_tmem')))
            yield '\n'
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'exact_tmem')))
            yield '\n'
    yield '</section>\n\n'

blocks = {}
debug_info = '1=68&6=81&7=87&8=89&9=91&10=97&11=102&12=114&14=116&15=118&16=120&19=123&20=125&21=127&22=129&24=131&25=133&26=135&27=140&29=142&30=146&31=151&32=157&33=159&36=165&37=167&38=175&39=177&42=183&43=186&44=190&45=192&46=205&48=207&49=222&50=226&53=259&54=261&56=264&57=269&58=277&59=279&60=281&61=283'