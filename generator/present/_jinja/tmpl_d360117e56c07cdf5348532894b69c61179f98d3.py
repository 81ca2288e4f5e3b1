from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/header.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_formula = l_0_figure = l_0_pill = missing
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/header.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/header.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/header.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/header.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield from context.blocks['header'][0](context)
    yield '\n'
    yield from context.blocks['toc'][0](context)
    yield '\n'

def block_header(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_version = resolve('version')
    l_0_baseline = resolve('baseline')
    l_0_headline = resolve('headline')
    l_0_spec = resolve('spec')
    l_0_configuration = resolve('configuration')
    l_0_lead = resolve('lead')
    l_0_model = resolve('model')
    pass
    yield '<div class="kicker" data-live="kicker">genreport '
    yield escape((undefined(name='version') if l_0_version is missing else l_0_version))
    yield ' · roofline report'
    if (undefined(name='baseline') if l_0_baseline is missing else l_0_baseline):
        pass
        yield ' · what-if'
    yield '</div>\n<h1 data-live="headline">'
    yield escape((undefined(name='headline') if l_0_headline is missing else l_0_headline))
    yield '</h1>\n<div class="meta" data-static>'
    if (undefined(name='baseline') if l_0_baseline is missing else l_0_baseline):
        pass
        yield 'a what-if of the spec <code>'
        yield escape(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'name'))
        yield '</code>, “'
        yield escape(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'title'))
        yield '”'
    else:
        pass
        yield escape((undefined(name='configuration') if l_0_configuration is missing else l_0_configuration))
        yield ' · spec <code>'
        yield escape(environment.getattr((undefined(name='spec') if l_0_spec is missing else l_0_spec), 'name'))
        yield '</code>'
    yield '\n  · accounting: '
    yield escape(('exact, per matrix' if ((undefined(name='lead') if l_0_lead is missing else l_0_lead) != 'seed') else ("seed 003's (the declared counts; a step reads the experts its tokens touch)" if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe') else "seed 003's (all N parameters read every step)")))
    yield '</div>\n'

def block_toc(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_training = resolve('training')
    l_0_ch = resolve('ch')
    l_0_many = resolve('many')
    l_0_par = resolve('par')
    l_0_GPU = resolve('GPU')
    l_0_measured = resolve('measured')
    l_0_serving = resolve('serving')
    pass
    yield '<nav class="toc">\n  <a href="#s0">0. Summary</a><br><a href="#s1">1. A machine waiting for data</a><br>\n  <a href="#s2">2. Intensity and the ridge</a><br><a href="#s3">3. Three modes</a><br>\n  <a href="#s4">4. Why batching only saves half</a><br>'
    if (undefined(name='training') if l_0_training is missing else l_0_training):
        pass
        yield '<a href="#s5">'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's5'))
        yield '. Training lacks something else</a><br>'
    yield '  <a href="#s6">'
    yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's6'))
    yield '. What would change it</a><br>'
    if ((undefined(name='many') if l_0_many is missing else l_0_many) or (undefined(name='par') if l_0_par is missing else l_0_par)):
        pass
        yield '<a href="#s7">'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield '. Many '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield 's</a><br>'
    if (undefined(name='measured') if l_0_measured is missing else l_0_measured):
        pass
        yield '<a href="#s8">'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's8'))
        yield '. Measured</a><br>'
    if (undefined(name='serving') if l_0_serving is missing else l_0_serving):
        pass
        yield '<a href="#s9">'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's9'))
        yield '. Serving</a><br>'
    yield '  <a href="#appendix">Appendix</a>\n</nav>\n'

blocks = {'header': block_header, 'toc': block_toc}
debug_info = '1=12&2=24&9=26&2=29&3=45&4=51&5=53&6=67&9=70&13=86&14=92'