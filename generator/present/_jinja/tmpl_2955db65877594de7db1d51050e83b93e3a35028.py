from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s8_measured.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_measured = resolve('measured')
    l_0_ch = resolve('ch')
    l_0_measured_not_compared = resolve('measured_not_compared')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['commands']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'commands' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s8_measured.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s8_measured.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s8_measured.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s8_measured.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    if (undefined(name='measured') if l_0_measured is missing else l_0_measured):
        pass
        yield '<section id="s8" data-static>\n<h2>'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's8'))
        yield '. Measured</h2>\n'
        template = environment.get_template('_measured.html.j2', 'sections/s8_measured.html.j2')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
        yield '</section>\n'
    elif (undefined(name='measured_not_compared') if l_0_measured_not_compared is missing else l_0_measured_not_compared):
        pass
        yield '<section id="s8" data-static>\n<h2>'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's8'))
        yield '. Measured</h2>\n<p>'
        yield escape(t_1((undefined(name='measured_not_compared') if l_0_measured_not_compared is missing else l_0_measured_not_compared)))
        yield '</p>\n</section>\n'
    yield '\n'

blocks = {}
debug_info = '1=21&2=33&4=36&5=38&7=45&9=48&10=50'