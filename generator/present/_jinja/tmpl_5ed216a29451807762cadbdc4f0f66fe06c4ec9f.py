from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = '_measured.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_measured = resolve('measured')
    try:
        t_1 = environment.filters['bandwidth']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'bandwidth' found.")
    try:
        t_2 = environment.filters['capitalize']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'capitalize' found.")
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
        t_5 = environment.filters['rate']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'rate' found.")
    try:
        t_6 = environment.filters['size']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'size' found.")
    try:
        t_7 = environment.filters['time']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'time' found.")
    pass
    yield '<p>Measure the achieved FLOP/s and bandwidth of a step, compare each with its peak, and the state follows (seed 000\'s\nthree-way table). MFU is achieved useful FLOP/s over peak FLOP/s; MBU is achieved bandwidth over peak bandwidth. Over\nthe same interval MFU / MBU = I / R, the step\'s intensity over the ridge.</p>\n<div class="scroll"><table><thead>\n<tr><th>measurement</th><th class="n">measured</th><th class="n">ideal bound</th><th class="n">of the bound</th><th class="n">MBU</th><th class="n">MFU</th><th>state</th></tr></thead><tbody>\n'
    for l_1_m in (undefined(name='measured') if l_0_measured is missing else l_0_measured):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_m, 'workload'))
        yield ' at '
        yield escape(environment.getattr(l_1_m, 'where'))
        yield '<br><span class="meta">'
        yield escape(environment.getattr(environment.getattr(l_1_m, 'source'), 'title'))
        if environment.getattr(environment.getattr(l_1_m, 'source'), 'date'):
            pass
            yield ', '
            yield escape(environment.getattr(environment.getattr(l_1_m, 'source'), 'date'))
        yield '</span></td>\n<td class="n">'
        yield escape(t_3(environment.getattr(l_1_m, 'tokens_per_s')))
        yield ' tok/s<br>'
        yield escape(t_7(environment.getattr(l_1_m, 'step_time')))
        yield '</td>\n<td class="n">'
        yield escape(t_3(environment.getattr(l_1_m, 'bound_tokens_per_s')))
        yield ' tok/s<br>'
        yield escape(t_7(environment.getattr(l_1_m, 'bound_time')))
        yield '</td>\n<td class="n">'
        yield escape(t_4(environment.getattr(l_1_m, 'ratio')))
        yield '</td><td class="n">'
        yield escape(t_4(environment.getattr(l_1_m, 'mbu')))
        yield '</td><td class="n">'
        yield escape(t_4(environment.getattr(l_1_m, 'mfu'), 2))
        yield '</td>\n<td><strong>'
        yield escape(environment.getattr(l_1_m, 'state_label'))
        yield '</strong> ('
        yield escape(environment.getattr(l_1_m, 'state_seed_term'))
        yield ')</td></tr>\n'
    l_1_m = missing
    yield '</tbody></table></div>\n'
    l_1_loop = missing
    for l_1_m, l_1_loop in LoopContext((undefined(name='measured') if l_0_measured is missing else l_0_measured), undefined):
        _loop_vars = {}
        pass
        yield '<h3>'
        yield escape(t_2(environment.getattr(l_1_m, 'workload')))
        yield ' at '
        yield escape(environment.getattr(l_1_m, 'where'))
        yield ': '
        yield escape(environment.getattr(l_1_m, 'state_label'))
        yield '</h3>\n<p>The engine reached '
        yield escape(t_1(environment.getattr(l_1_m, 'achieved_bandwidth')))
        yield ' and '
        yield escape(t_5(environment.getattr(l_1_m, 'achieved_flops')))
        yield ': MBU '
        yield escape(t_4(environment.getattr(l_1_m, 'mbu')))
        yield ',\nMFU '
        yield escape(t_4(environment.getattr(l_1_m, 'mfu'), 2))
        yield "; the step's intensity "
        yield escape(t_3(environment.getattr(l_1_m, 'intensity')))
        yield ' FLOP/B over the ridge '
        yield escape(t_3(environment.getattr(l_1_m, 'ridge')))
        yield ' gives\nMFU / MBU = '
        yield escape(t_3(environment.getattr(l_1_m, 'intensity_over_ridge')))
        yield '. It runs at '
        yield escape(t_4(environment.getattr(l_1_m, 'ratio')))
        yield ' of the ideal bound, which is set by\n'
        yield escape(environment.getattr(l_1_m, 'roofline_binds'))
        yield '. Reading: '
        yield escape(environment.getattr(l_1_m, 'state_reading'))
        if environment.getattr(l_1_m, 'state_note'):
            pass
            yield '; '
            yield escape(environment.getattr(l_1_m, 'state_note'))
        yield '.\nThe gap: '
        yield escape(environment.getattr(l_1_m, 'gap'))
        yield '.</p>\n<p class="meta">Accounting: MBU '
        yield escape(t_4(environment.getattr(l_1_m, 'mbu')))
        yield ' counts '
        yield escape(t_6(environment.getattr(l_1_m, 'bytes')))
        yield ' per step, the '
        yield escape(environment.getattr(l_1_m, 'accounting'))
        yield ' accounting\nthe bound uses; the '
        yield escape(environment.getattr(l_1_m, 'other_accounting'))
        yield ' accounting counts '
        yield escape(t_6(environment.getattr(l_1_m, 'bytes_other')))
        yield ' (MBU '
        yield escape(t_4(environment.getattr(l_1_m, 'mbu_other')))
        yield ').\n'
        if environment.getattr(environment.getattr(l_1_m, 'source'), 'note'):
            pass
            yield 'The source says: '
            yield escape(environment.getattr(environment.getattr(l_1_m, 'source'), 'note'))
        yield '</p>\n<p>Remedies for this state: '
        l_2_loop = missing
        for l_2_rem, l_2_loop in LoopContext(environment.getattr(l_1_m, 'remedies'), undefined):
            _loop_vars = {}
            pass
            yield escape(l_2_rem)
            if (not environment.getattr(l_2_loop, 'last')):
                pass
                yield '; '
        l_2_loop = l_2_rem = missing
        yield '.</p>\n'
        if environment.getattr(l_1_m, 'what_if'):
            pass
            yield '<div class="callout">'
            yield escape(environment.getattr(l_1_m, 'what_if'))
            yield '</div>'
        if environment.getattr(l_1_m, 'utilization_caveat'):
            pass
            yield '<div class="callout">'
            yield escape(environment.getattr(l_1_m, 'utilization_caveat'))
            yield '</div>'
    l_1_loop = l_1_m = missing
    yield '<p class="meta">'
    yield escape(environment.getattr(environment.getitem((undefined(name='measured') if l_0_measured is missing else l_0_measured), 0), 'diagnosis_source'))
    yield '; “near peak” means at least '
    yield escape(t_4(environment.getattr(environment.getitem((undefined(name='measured') if l_0_measured is missing else l_0_measured), 0), 'near_peak'), 0))
    yield ' of it.</p>'

blocks = {}
debug_info = '6=55&7=59&8=69&9=73&10=77&11=83&14=90&15=94&16=100&17=106&18=112&19=116&20=124&21=126&22=132&23=138&24=144&25=153&26=158&28=165'