from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_version = resolve('version')
    l_0_headline = resolve('headline')
    l_0_live_page = resolve('live_page')
    l_0_formula = l_0_figure = l_0_pill = missing
    pass
    included_template = environment.get_template('_macros.html.j2', 'report.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'report.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'report.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'report.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="generator" content="genreport '
    yield escape((undefined(name='version') if l_0_version is missing else l_0_version))
    yield '">\n<title>'
    yield escape((undefined(name='headline') if l_0_headline is missing else l_0_headline))
    yield '</title>\n<style>\n'
    template = environment.get_template('report.css', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield '</style>\n</head>\n<body>\n'
    template = environment.get_template('sections/header.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield '<details id="live" class="live" hidden><summary>What if? Change an input and every marked number, table, verdict and\nthe two roofline figures follow, recomputed in this page from the same formulas</summary><div data-fields></div></details>\n'
    template = environment.get_template('sections/whatif.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s0_summary.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s1_waiting.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s2_intensity.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s3_modes.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s4_batching.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s5_training.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s6_levers.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s7_gpus.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s8_measured.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/s9_serving.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('sections/appendix.html.j2', 'report.html.j2')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield escape((undefined(name='live_page') if l_0_live_page is missing else l_0_live_page))
    yield '\n</body>\n</html>'

blocks = {}
debug_info = '1=15&7=28&8=30&10=32&14=39&17=46&18=52&19=58&20=64&21=70&22=76&23=82&24=88&25=94&26=100&27=106&28=112&29=118'