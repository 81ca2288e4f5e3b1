from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s2_intensity.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_compute_label = resolve('compute_label')
    l_0_peak_mixed = resolve('peak_mixed')
    l_0_hw = resolve('hw')
    l_0_precision = resolve('precision')
    l_0_fx = resolve('fx')
    l_0_gemm_rows = resolve('gemm_rows')
    l_0_figs = resolve('figs')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['first']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'first' found.")
    try:
        t_2 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_3 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_4 = environment.filters['nearest']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'nearest' found.")
    try:
        t_5 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_6 = environment.filters['rate']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'rate' found.")
    try:
        t_7 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s2_intensity.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s2_intensity.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s2_intensity.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s2_intensity.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s2">\n<h2>2. One trip, how much work: intensity and the ridge</h2>\n<p>Arithmetic intensity is FLOPs per byte moved to or from memory. The ridge point is where the bandwidth slope meets the\ncompute roof: below it a workload is bandwidth-bound, above it compute-bound. The roofline\'s roof is the dense peak P (<span data-live="compute">'
    yield escape((undefined(name='compute_label') if l_0_compute_label is missing else l_0_compute_label))
    yield '</span>'
    if (undefined(name='peak_mixed') if l_0_peak_mixed is missing else l_0_peak_mixed):
        pass
        yield "<span data-static>:\nthe rate at which a token's weight FLOPs finish, each class in its format</span>"
    yield ')'
    if (environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'sparse') and (not (undefined(name='peak_mixed') if l_0_peak_mixed is missing else l_0_peak_mixed))):
        pass
        yield "<span data-static>; the datasheet's sparse figure ("
        yield escape(t_6(context.call(environment.getattr(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'sparse'), 'get'), environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'compute'), t_1(environment, t_3(context.eval_ctx, context.call(environment.getattr(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'sparse'), 'values')))))))
        yield ')\nassumes 2:4 structured sparsity and is never used here</span>'
    yield '.</p>\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'ridge')))
    yield '\n'
    if t_7(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'iw')):
        pass
        yield '<h3>Weight reuse and the full GEMM intensity</h3>\n<p>A weight matrix of n × m serving T tokens does 2nmT FLOPs and reads nm·b bytes of weights: I<sub>W</sub> = 2T/b, where n and m\ncancel. Counting the T × n input and T × m output too gives the full intensity, which I<sub>W</sub> bounds from above and which saturates\nas T grows. SymPy derives the saturation and the tokens needed to reach the ridge:</p>\n'
        yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'iw')))
        yield '\n'
        if t_7(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'gemm')):
            pass
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'gemm')))
        yield '<div class="scroll"><table><thead>\n<tr data-cols="tokens"><th>matrix</th><th class="n">saturation</th><th class="n">tokens to reach the ridge</th>'
        for l_1_t in environment.getattr(environment.getitem((undefined(name='gemm_rows') if l_0_gemm_rows is missing else l_0_gemm_rows), 0), 'tokens'):
            _loop_vars = {}
            pass
            yield '<th class="n" data-col="'
            yield escape(l_1_t)
            yield '" data-label="I at T = ">I at T = '
            yield escape(t_2(l_1_t))
            yield '</th>'
        l_1_t = missing
        yield '</tr></thead><tbody>\n'
        for l_1_g in (undefined(name='gemm_rows') if l_0_gemm_rows is missing else l_0_gemm_rows):
            l_1_q = resolve('q')
            _loop_vars = {}
            pass
            yield '<tr data-cols="tokens"><td>'
            yield escape(environment.getattr(l_1_g, 'name'))
            yield ' ('
            yield escape(t_2(environment.getattr(l_1_g, 'n')))
            yield ' × '
            yield escape(t_2(environment.getattr(l_1_g, 'm')))
            yield ')</td><td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'gemm_saturation', 'num', _loop_vars=_loop_vars, **environment.getattr(l_1_g, 'key')))
            yield '</td>\n<td class="n">'
            yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'gemm_crossover_tokens', 'nearest', 'never (saturates below the ridge)', _loop_vars=_loop_vars, **environment.getattr(l_1_g, 'key')))
            yield '</td>\n'
            for l_2_t in environment.getattr(l_1_g, 'tokens'):
                _loop_vars = {}
                pass
                yield '<td class="n" data-col="'
                yield escape(l_2_t)
                yield '">'
                yield escape(context.call((undefined(name='q') if l_1_q is missing else l_1_q), 'gemm_intensity', 'num', tokens=l_2_t, _loop_vars=_loop_vars, **environment.getattr(l_1_g, 'key')))
                yield '</td>'
            l_2_t = missing
            yield '</tr>\n'
        l_1_g = l_1_q = missing
        yield '</tbody></table></div>\n'
        for l_1_g in (undefined(name='gemm_rows') if l_0_gemm_rows is missing else l_0_gemm_rows)[:1]:
            l_1_sc = resolve('sc')
            _loop_vars = {}
            pass
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr(l_1_g, 'sat'), _loop_vars=_loop_vars))
            yield '\n'
            yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr(l_1_g, 'cross'), _loop_vars=_loop_vars))
            yield '\n<p data-static>'
            if environment.getattr(l_1_g, 'crossover'):
                pass
                yield 'So one weight load must serve about '
                yield escape(t_4(environment.getattr(l_1_g, 'crossover')))
                yield ' tokens for this matrix to reach the ridge, not\n'
                yield escape(t_5(environment.getattr(l_1_g, 'weight_crossover')))
                if (environment.getattr(l_1_g, 'b') != 2):
                    pass
                    yield ' (the T of 2T/b = '
                    yield escape(t_5(environment.getattr((undefined(name='sc') if l_1_sc is missing else l_1_sc), 'ridge_point')))
                    yield ' at b = '
                    yield escape(t_5(environment.getattr(l_1_g, 'b')))
                    yield ' B)'
                yield ': activations add traffic, and the real root is rounded to the nearest token.'
            else:
                pass
                yield 'This matrix never reaches the ridge:\nits intensity saturates at '
                yield escape(t_5(environment.getattr(l_1_g, 'saturation')))
                yield ' FLOP/B.'
            yield '</p>\n'
        l_1_g = l_1_sc = missing
    yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig6-roofline'))
    yield '\n</section>\n\n'

blocks = {}
debug_info = '1=61&5=74&6=80&8=86&9=88&14=91&15=93&17=97&18=107&19=112&20=120&21=122&24=134&25=138&26=140&27=142&28=147&29=159&32=163'