from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/whatif.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_baseline = resolve('baseline')
    l_0_baseline_overrides = resolve('baseline_overrides')
    l_0_baseline_rows = resolve('baseline_rows')
    l_0_whatif_story = resolve('whatif_story')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_2 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/whatif.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/whatif.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/whatif.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/whatif.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    if (undefined(name='baseline') if l_0_baseline is missing else l_0_baseline):
        pass
        yield '<section id="whatif">\n<h2>What-if: what moved</h2>\n<p>This report changes '
        l_1_loop = missing
        for l_1_o, l_1_loop in LoopContext((undefined(name='baseline_overrides') if l_0_baseline_overrides is missing else l_0_baseline_overrides), undefined):
            _loop_vars = {}
            pass
            yield '<code>'
            yield escape(l_1_o)
            yield '</code>'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_o = missing
        yield ' on the spec <code>'
        yield escape(environment.getattr(environment.getattr((undefined(name='baseline') if l_0_baseline is missing else l_0_baseline), 'spec'), 'name'))
        yield '</code>.\nThe table sets each headline quantity of the baseline beside the what-if\'s, those that moved first; the figures\ndraw the baseline faded.</p>\n<div class="scroll"><table><thead>\n<tr><th>quantity</th><th>at</th><th class="n">baseline</th><th class="n">what-if</th><th class="n">ratio</th></tr></thead><tbody>\n'
        for l_1_row in (undefined(name='baseline_rows') if l_0_baseline_rows is missing else l_0_baseline_rows):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_row, 'title'))
            yield ' <code>'
            yield escape(environment.getattr(l_1_row, 'id'))
            yield '</code></td><td>'
            yield escape(environment.getattr(l_1_row, 'params'))
            yield '</td><td class="n">'
            yield escape(environment.getattr(l_1_row, 'old'))
            yield '</td><td class="n">'
            yield escape(environment.getattr(l_1_row, 'new'))
            yield '</td>\n<td class="n">'
            if (not t_2(environment.getattr(l_1_row, 'ratio'))):
                pass
                yield escape(t_1('%.3g', environment.getattr(l_1_row, 'ratio')))
                yield '×'
            else:
                pass
                yield '—'
            yield '</td></tr>\n'
        l_1_row = missing
        yield '</tbody></table></div>\n'
        for l_1_line in (undefined(name='whatif_story') if l_0_whatif_story is missing else l_0_whatif_story):
            _loop_vars = {}
            pass
            yield '<p>'
            yield escape(l_1_line)
            yield '</p>'
        l_1_line = missing
        yield '</section>\n'
    yield '\n'

blocks = {}
debug_info = '1=28&2=40&5=44&10=57&11=61&12=71&15=81'