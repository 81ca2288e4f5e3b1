from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s1_waiting.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_fx = resolve('fx')
    l_0_moe_text = resolve('moe_text')
    l_0_figs = resolve('figs')
    l_0_facts = resolve('facts')
    l_0_precision = resolve('precision')
    l_0_model = resolve('model')
    l_0_hierarchy = resolve('hierarchy')
    l_0_states = resolve('states')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['bandwidth']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'bandwidth' found.")
    try:
        t_2 = environment.filters['memsize']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'memsize' found.")
    try:
        t_3 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_4 = environment.filters['pct']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'pct' found.")
    try:
        t_5 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s1_waiting.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s1_waiting.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s1_waiting.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s1_waiting.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s1">\n<h2>1. A machine waiting for data</h2>\n<p>One decode step at batch 1 must read every weight once and do about two FLOPs per weight. Each has a lower bound:\nthe bytes over the bandwidth, and the FLOPs over the peak. The step cannot be faster than the larger one.</p>\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 't_mem')))
    yield '\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 't_comp')))
    yield '\n'
    if (undefined(name='moe_text') if l_0_moe_text is missing else l_0_moe_text):
        pass
        yield '<p>'
        yield escape((undefined(name='moe_text') if l_0_moe_text is missing else l_0_moe_text))
        yield '</p>'
    yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig1-decode-bounds'))
    yield '\n<p>The ratio of the two bounds is <span data-fact="bound_ratio">'
    yield escape(t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'bound_ratio')))
    yield '</span>'
    if ((environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes') == 2) and t_5(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'))):
        pass
        yield ', the ridge point itself: at\nbatch 1 in 16-bit weights the intensity is 2N / (2N) = 1 FLOP/B, and a ratio of two lower bounds at intensity 1 is\nP/W'
    yield '.</p>\n<div class="callout">“GPU utilisation 99%” in <code>nvidia-smi</code> means a kernel was running during 99% of the sampling\nwindow. It says nothing about how busy the tensor cores or the memory bus were: a card starved by bandwidth and a\ncard saturating its compute both show 99%. Nor does <span data-fact="bound_ratio">'
    yield escape(t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'bound_ratio')))
    yield '</span>:1 mean the tensor cores idle\n<span data-fact="compute_idle_share">'
    yield escape(t_4(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'compute_idle_share')))
    yield '</span> of the wall-clock time: the two bounds overlap, and the ratio compares two lower bounds.</div>\n'
    if (undefined(name='hierarchy') if l_0_hierarchy is missing else l_0_hierarchy):
        pass
        yield '<h3>Where the data lives</h3>\n<p>Seed 000\'s four levels of memory: the nearer, the faster and the smaller. This GPU\'s sizes, from its spec:</p>\n<div class="scroll"><table>\n<thead><tr><th>level</th><th>scope</th><th class="n">size</th><th class="n">whole GPU</th><th>managed by</th></tr></thead>\n<tbody>'
        l_1_loop = missing
        for l_1_h, l_1_loop in LoopContext((undefined(name='hierarchy') if l_0_hierarchy is missing else l_0_hierarchy), undefined):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_h, 'level'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_h, 'scope'))
            yield '</td>\n<td class="n">'
            if environment.getattr(l_1_h, 'size'):
                pass
                yield escape(t_2(environment.getattr(l_1_h, 'size')))
                if (environment.getattr(l_1_loop, 'index') <= 2):
                    pass
                    yield ' per SM'
            else:
                pass
                yield 'not in the spec'
            yield '</td>\n<td class="n">'
            if environment.getattr(l_1_h, 'total'):
                pass
                yield escape(t_2(environment.getattr(l_1_h, 'total')))
            else:
                pass
                yield '—'
            if environment.getattr(l_1_h, 'bandwidth'):
                pass
                yield '<br>'
                yield escape(t_1(environment.getattr(l_1_h, 'bandwidth')))
            yield '</td>\n<td>'
            yield escape(environment.getattr(l_1_h, 'managed'))
            yield '</td></tr>'
        l_1_loop = l_1_h = missing
        yield '</tbody>\n</table></div>\n<p class="meta">An HBM access costs hundreds of times a register access (seed 000). Every bound here uses the HBM\nbandwidth: the weights and the KV cache do not fit in the levels above it and cross it on every step.</p>\n'
    if (undefined(name='states') if l_0_states is missing else l_0_states):
        pass
        yield '<h3>Diagnosing a real run</h3>\n<p>Measure the achieved bandwidth and FLOP/s of a step and compare each with its peak; “near peak” means at least\n'
        yield escape(t_4(environment.getattr(environment.getitem((undefined(name='states') if l_0_states is missing else l_0_states), 0), 'near_peak'), 0))
        yield ' of it. Seed 000\'s three states:</p>\n<div class="scroll"><table>\n<thead><tr><th>achieved bandwidth</th><th>achieved compute</th><th>state</th><th>what helps</th></tr></thead>\n<tbody>'
        l_1_loop = missing
        for l_1_st, l_1_loop in LoopContext((undefined(name='states') if l_0_states is missing else l_0_states), undefined):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_st, 'bandwidth'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_st, 'compute'))
            yield '</td><td><strong>'
            yield escape(environment.getattr(l_1_st, 'state'))
            yield '</strong> ('
            yield escape(environment.getattr(l_1_st, 'seed_term'))
            yield ')</td>\n<td>'
            l_2_loop = missing
            for l_2_rem, l_2_loop in LoopContext(environment.getattr(l_1_st, 'remedies'), undefined):
                _loop_vars = {}
                pass
                yield escape(l_2_rem)
                if (not environment.getattr(l_2_loop, 'last')):
                    pass
                    yield '; '
            l_2_loop = l_2_rem = missing
            yield '</td></tr>'
        l_1_loop = l_1_st = missing
        yield '</tbody>\n</table></div>\n'
    yield '</section>\n\n'

blocks = {}
debug_info = '1=50&6=63&7=65&8=67&9=72&10=74&15=80&16=82&17=84&22=88&23=96&24=106&25=117&30=121&33=124&36=127&37=140'