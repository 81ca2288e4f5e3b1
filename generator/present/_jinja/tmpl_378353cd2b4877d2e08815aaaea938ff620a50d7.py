from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/appendix.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_all_formulas = resolve('all_formulas')
    l_0_notation = resolve('notation')
    l_0_inputs = resolve('inputs')
    l_0_par = resolve('par')
    l_0_ch = resolve('ch')
    l_0_GPU = resolve('GPU')
    l_0_spec = resolve('spec')
    l_0_slips = resolve('slips')
    l_0_slips_elsewhere = resolve('slips_elsewhere')
    l_0_version = resolve('version')
    l_0_rebuild_command = resolve('rebuild_command')
    l_0_hw = resolve('hw')
    l_0_model = resolve('model')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['commands']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'commands' found.")
    try:
        t_2 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_3 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_4 = environment.filters['symbols']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'symbols' found.")
    try:
        t_5 = environment.tests['string']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'string' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/appendix.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/appendix.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/appendix.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/appendix.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="appendix">\n<h2>Appendix</h2>\n<h3>A. Every formula used</h3>\n<p class="meta">Each formula in the body is the expression that was evaluated, printed by SymPy: symbolic, with this pair\'s\nvalues substituted, and the result. The index:</p>\n<div class="scroll"><table><thead><tr><th>quantity</th><th>result</th><th>at</th><th>source</th></tr></thead><tbody>\n'
    l_1_loop = missing
    for l_1_b, l_1_loop in LoopContext((undefined(name='all_formulas') if l_0_all_formulas is missing else l_0_all_formulas), undefined):
        l_1_shown = l_1_live = missing
        _loop_vars = {}
        pass
        l_1_shown = (context.call(environment.getattr(l_1_b, 'get'), 'stated', _loop_vars=_loop_vars) or environment.getattr(l_1_b, 'result'))
        _loop_vars['shown'] = l_1_shown
        l_1_live = ('data-q' in (undefined(name='shown') if l_1_shown is missing else l_1_shown))
        _loop_vars['live'] = l_1_live
        yield '<tr><td><a href="#'
        yield escape(environment.getattr(l_1_b, 'anchor'))
        yield '">'
        yield escape(environment.getattr(l_1_b, 'title'))
        yield '</a>'
        if (environment.getattr(l_1_b, 'accounting') == 'exact'):
            pass
            yield ' (exact accounting)'
        yield '</td>\n<td class="n"'
        if (not (undefined(name='live') if l_1_live is missing else l_1_live)):
            pass
            yield ' data-static'
        yield '>'
        yield escape((undefined(name='shown') if l_1_shown is missing else l_1_shown))
        yield '</td><td data-static>'
        l_2_loop = missing
        for (l_2_k, l_2_v), l_2_loop in LoopContext(context.call(environment.getattr(environment.getattr(l_1_b, 'params'), 'items'), _loop_vars=_loop_vars), undefined):
            _loop_vars = {}
            pass
            yield escape(l_2_k)
            yield ' '
            yield escape((l_2_v if t_5(l_2_v) else t_2(l_2_v)))
            if (not environment.getattr(l_2_loop, 'last')):
                pass
                yield ', '
        l_2_loop = l_2_k = l_2_v = missing
        yield '</td><td>'
        yield escape(environment.getattr(l_1_b, 'source'))
        yield '</td></tr>'
    l_1_loop = l_1_b = l_1_shown = l_1_live = missing
    yield '</tbody></table></div>\n<h3>B. Notation</h3>\n<div class="scroll"><table><thead><tr><th>symbol</th><th>unit</th><th>meaning</th></tr></thead><tbody>\n'
    for l_1_e in (undefined(name='notation') if l_0_notation is missing else l_0_notation):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(t_3(environment.getattr(l_1_e, 'math')))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_e, 'unit'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_e, 'meaning'))
        yield '</td></tr>'
    l_1_e = missing
    yield '</tbody></table></div>\n<h3>C. Inputs and assumptions</h3>\n<div class="scroll" data-static><table><thead><tr><th>input</th><th>symbol</th><th>value</th><th>source</th></tr></thead><tbody>\n'
    for l_1_row in (undefined(name='inputs') if l_0_inputs is missing else l_0_inputs):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_row, 'what'))
        yield '</td><td>'
        yield escape(t_4(environment.getattr(l_1_row, 'symbol')))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_row, 'value'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_row, 'source'))
        yield '</td></tr>'
    l_1_row = missing
    yield '</tbody></table></div>\n<p class="meta">Conventions: GB = 10⁹ B, GiB = 2³⁰ B, KiB = 1024 B; TB/s = 10¹² B/s; TFLOP/s = 10¹² FLOP/s; token counts\nwritten 1k, 2k, 8k mean 1024, 2048, 8192. The ridge is kept unrounded inside formulas; crossover roots are rounded to the\nnearest integer, capacity batches rounded down. '
    if (undefined(name='par') if l_0_par is missing else l_0_par):
        pass
        yield 'The interconnect is an input (its ledger is chapter '
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield "'s). The strict bounds take every kernel at the peaks and read each byte from HBM once a step (no cache hit spares one); the serial estimates take the measured shares of the peaks and the kernels' fixed costs the table lists."
    else:
        pass
        yield 'Multi-'
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield ' communication, kernel efficiency and cache hits are out of scope.'
    yield '</p>\n'
    if environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'warnings'):
        pass
        yield '<p class="meta">Warnings from the spec: '
        l_1_loop = missing
        for l_1_wmsg, l_1_loop in LoopContext(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'warnings'), undefined):
            _loop_vars = {}
            pass
            yield escape(l_1_wmsg)
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield '; '
        l_1_loop = l_1_wmsg = missing
        yield '</p>'
    if (undefined(name='slips') if l_0_slips is missing else l_0_slips):
        pass
        yield '<div class="keep" data-static>\n<h3>D. The seed\'s slips, corrected</h3>\n<p class="meta">This pair is seed '
        yield escape(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'seed'))
        yield '\'s own. Where the seed\'s text is wrong, the report states the correct value.</p>\n<div class="scroll"><table><thead><tr><th>the seed says</th><th>correct</th></tr></thead><tbody>\n'
        for l_1_s in (undefined(name='slips') if l_0_slips is missing else l_0_slips):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_s, 'claim'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_s, 'correct'))
            yield '</td></tr>'
        l_1_s = missing
        yield '</tbody></table></div>\n</div>\n'
    elif (undefined(name='slips_elsewhere') if l_0_slips_elsewhere is missing else l_0_slips_elsewhere):
        pass
        yield '<h3>D. The seed\'s slips</h3>\n<p class="meta" data-static>'
        yield escape(t_1((undefined(name='slips_elsewhere') if l_0_slips_elsewhere is missing else l_0_slips_elsewhere)))
        yield '</p>\n'
    yield '<h3>'
    yield escape(('E' if ((undefined(name='slips') if l_0_slips is missing else l_0_slips) or (undefined(name='slips_elsewhere') if l_0_slips_elsewhere is missing else l_0_slips_elsewhere)) else 'D'))
    yield '. Reproducibility</h3>\n<p class="meta" data-static>genreport '
    yield escape((undefined(name='version') if l_0_version is missing else l_0_version))
    yield '; spec sha256 <code>'
    yield escape(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'digest')[:16])
    yield '</code>; rebuild with <code>'
    yield escape((undefined(name='rebuild_command') if l_0_rebuild_command is missing else l_0_rebuild_command))
    yield '</code>.\nHardware: '
    yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'file'))
    yield ' ('
    yield escape(context.call(environment.getattr(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'source'), 'short')))
    yield '). Model: '
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'file'))
    yield ' ('
    yield escape(context.call(environment.getattr(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'source'), 'short')))
    yield ').</p>\n</section>\n'

blocks = {}
debug_info = '1=55&8=69&9=86&13=108&17=120&21=134&22=145&23=158&26=161&28=163&31=173&33=176&35=179&36=181&37=187'