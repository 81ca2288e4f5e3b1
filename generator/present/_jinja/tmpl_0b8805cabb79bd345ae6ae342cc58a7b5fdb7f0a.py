from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s0_summary.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_Gpu = resolve('Gpu')
    l_0_hw = resolve('hw')
    l_0_q = resolve('q')
    l_0_peak_mixed = resolve('peak_mixed')
    l_0_compute_label = resolve('compute_label')
    l_0_model = resolve('model')
    l_0_frame = resolve('frame')
    l_0_sc = resolve('sc')
    l_0_GPU = resolve('GPU')
    l_0_precision = resolve('precision')
    l_0_facts = resolve('facts')
    l_0_w = resolve('w')
    l_0_summary = resolve('summary')
    l_0_serving_summary = resolve('serving_summary')
    l_0_decision = resolve('decision')
    l_0_par = resolve('par')
    l_0_prompt_group_note = resolve('prompt_group_note')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['device']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'device' found.")
    try:
        t_2 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_3 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_4 = environment.filters['kib']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'kib' found.")
    try:
        t_5 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_6 = environment.filters['memsize']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'memsize' found.")
    try:
        t_7 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_8 = environment.filters['rejectattr']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'rejectattr' found.")
    try:
        t_9 = environment.filters['sig3']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'sig3' found.")
    try:
        t_10 = environment.filters['symbols']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'symbols' found.")
    try:
        t_11 = environment.filters['time']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'time' found.")
    try:
        t_12 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s0_summary.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s0_summary.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s0_summary.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s0_summary.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s0">\n<h2>0. Summary</h2>\n<div class="scroll inputs-box"><table>\n<thead><tr><th>'
    yield escape((undefined(name='Gpu') if l_0_Gpu is missing else l_0_Gpu))
    yield '</th><th>model</th><th>precision</th><th>workloads</th></tr></thead>\n<tbody><tr><td><span data-static>'
    yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
    yield '</span>: '
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'peak_flops', 'rate'))
    yield ' dense'
    if (undefined(name='peak_mixed') if l_0_peak_mixed is missing else l_0_peak_mixed):
        pass
        yield ','
    yield ' <span data-live="compute">'
    yield escape((undefined(name='compute_label') if l_0_compute_label is missing else l_0_compute_label))
    yield '</span>, '
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'bandwidth', 'bandwidth'))
    yield ',\n  '
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'capacity', 'gib'))
    yield ' usable; ridge <strong>'
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'ridge_point', 'num'))
    yield '</strong> FLOP/B'
    if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
        pass
        yield '<span data-static>; $'
        yield escape(t_2('%.2f', environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour')))
        yield '/h ('
        yield escape(context.call(environment.getattr(context.call(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'source_of'), 'price'), 'short')))
        yield ')</span>'
    yield '</td>\n<td><span data-static>'
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'title'))
    yield '</span>: N = '
    yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'parameters', 'params'))
    yield ', L = <span data-live="model.layers">'
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'layers'))
    yield '</span>, d = <span data-live="model.hidden_size">'
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'hidden_size'))
    yield '</span>,\n  H<sub>q</sub> = <span data-live="model.heads">'
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'heads'))
    yield '</span>, H<sub>kv</sub> = <span data-live="model.kv_heads">'
    yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'kv_heads'))
    yield '</span>'
    if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'):
        pass
        yield ', <span data-live="model.moe.experts">'
        yield escape(environment.getattr(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'), 'experts'))
        yield '</span> experts (<span data-live="model.moe.active_experts">'
        yield escape(environment.getattr(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'), 'active_experts'))
        yield '</span> active)'
    yield ';\n  KV '
    if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many') and (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'kv_card') != environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'kv_bytes_per_token'))):
        pass
        yield '<span data-static>'
        yield escape(t_4(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'kv_card')))
        yield ' per token,</span> '
        yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'kv_bytes_per_token', 'kib'))
        yield ' per token on each '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
    else:
        pass
        yield '<span data-frame>'
        yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'kv_bytes_per_token', 'kib'))
        yield ' per token</span>'
    yield ' <span data-static>('
    yield escape(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'kv_cache'))
    yield ')</span>'
    if context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_windowed_per_sequence'):
        pass
        yield '<span data-static>\n  while the context fits every window; past it '
        if environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_global_layers'):
            pass
            yield escape(t_4(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_global_per_token')))
            yield ' per token in the '
            yield escape(t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_global_layers')))
            yield ' global layers\n  plus '
            yield escape(t_6(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_windowed_per_sequence')))
            yield ' per sequence in the '
            yield escape(t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_layers')))
            yield ' '
            yield escape(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_kind'))
            yield ' ones'
            if context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_global_per_token_gpu'):
                pass
                yield ' ('
                yield escape(t_4(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_global_per_token_gpu')))
                yield ' and '
                yield escape(t_6(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_windowed_per_sequence_gpu')))
                yield ' on each '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield escape(context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_stage_words', ''))
                yield ')'
        else:
            pass
            yield 'a fixed '
            yield escape(t_6(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_windowed_per_sequence')))
            yield ' per sequence, every one of the '
            yield escape(t_3(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_layers')))
            yield ' layers '
            yield escape(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_kind'))
            if context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_windowed_per_sequence_gpu'):
                pass
                yield ' ('
                yield escape(t_6(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_windowed_per_sequence_gpu')))
                yield ' on each '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield escape(context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_stage_words', ''))
                yield ')'
        yield '</span>'
    yield '</td>\n<td><span data-live="precision.label">'
    yield escape(context.call(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'label'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'dense')))
    yield '</span> (<span data-live="precision.weight_bytes">'
    yield escape(t_7(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes')))
    yield '</span> B per weight)</td>\n<td data-live="workloads">'
    if environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'decode_batch'):
        pass
        yield 'decode: batch '
        l_1_loop = missing
        for l_1_b, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'decode_batch'), undefined):
            _loop_vars = {}
            pass
            yield escape(t_3(l_1_b))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_b = missing
        yield '; context '
        l_1_loop = missing
        for l_1_s, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'decode_context'), undefined):
            _loop_vars = {}
            pass
            yield escape(t_3(l_1_s))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_s = missing
    if environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'):
        pass
        yield '<br>prefill: '
        l_1_loop = missing
        for l_1_t, l_1_loop in LoopContext(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt'), undefined):
            _loop_vars = {}
            pass
            yield escape(t_3(l_1_t))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_t = missing
        yield ' tokens'
    if environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'training_tokens'):
        pass
        yield '<br>training: '
        yield escape(t_3(environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'training_tokens')))
        yield '-token micro-batch'
    yield '</td></tr></tbody>\n</table></div>\n<div class="summary" data-prose="summary">\n'
    l_1_loop = missing
    for l_1_s, l_1_loop in LoopContext((undefined(name='summary') if l_0_summary is missing else l_0_summary), undefined):
        _loop_vars = {}
        pass
        yield '<p>'
        if environment.getattr(l_1_loop, 'first'):
            pass
            yield '<strong>'
            yield escape(l_1_s)
            yield '</strong>'
        else:
            pass
            yield escape(l_1_s)
        yield '</p>\n'
    l_1_loop = l_1_s = missing
    yield '</div>\n'
    if (undefined(name='serving_summary') if l_0_serving_summary is missing else l_0_serving_summary):
        pass
        yield '<p class="summary" data-static>'
        yield escape((undefined(name='serving_summary') if l_0_serving_summary is missing else l_0_serving_summary))
        yield '</p>\n'
    yield '<div class="scroll"><table class="decision'
    if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
        pass
        yield ' priced'
    yield '">\n<thead><tr><th>workload</th><th>binds</th><th class="n">bound</th><th class="n">other roof</th><th>fits</th>\n<th class="n">ms/token or TTFT</th><th class="n">tok/s/seq</th><th class="n">tok/s</th>'
    if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
        pass
        yield '<th class="n">$/M tok</th>'
    yield '<th>best lever</th></tr></thead>\n<tbody data-live="decision">\n'
    for l_1_x in (undefined(name='decision') if l_0_decision is missing else l_0_decision):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_x, 'label'))
        yield '</td><td>'
        yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), environment.getattr(l_1_x, 'binds'), _loop_vars=_loop_vars))
        yield '</td><td class="n">'
        yield escape(t_11(environment.getattr(l_1_x, 'time')))
        yield '</td>\n<td class="n">'
        if environment.getattr(l_1_x, 'other_roof'):
            pass
            yield escape(t_7(environment.getattr(l_1_x, 'other_roof')))
            yield '×&nbsp;'
            yield escape(environment.getattr(l_1_x, 'other'))
        else:
            pass
            yield '—'
        yield '</td>\n<td>'
        if environment.getattr(l_1_x, 'fits'):
            pass
            yield '<span class="ok">yes</span>'
            if ((environment.getattr(l_1_x, 'workload') == 'decode') and (not t_12(environment.getattr(l_1_x, 'capacity_batch')))):
                pass
                yield ', ≤&nbsp;'
                yield escape(t_3(environment.getattr(l_1_x, 'capacity_batch')))
            if environment.getattr(l_1_x, 'engine_runs'):
                pass
                yield '; past max_sequences ('
                yield escape(t_3(environment.getattr(l_1_x, 'engine_runs')))
                yield ')'
        else:
            pass
            yield '<span class="bad">no</span>'
        yield '</td>\n<td class="n">'
        if (environment.getattr(l_1_x, 'workload') == 'decode'):
            pass
            yield escape(t_9(environment.getattr(l_1_x, 'ms_per_token')))
        elif (environment.getattr(l_1_x, 'workload') == 'prefill'):
            pass
            yield escape(t_9(environment.getattr(l_1_x, 'ms_to_first_token')))
            yield ' (TTFT)'
        else:
            pass
            yield '—'
        yield '</td>\n<td class="n">'
        if (environment.getattr(l_1_x, 'workload') == 'decode'):
            pass
            yield escape(t_7(environment.getattr(l_1_x, 'tokens_per_s_sequence')))
        else:
            pass
            yield '—'
        yield '</td>\n<td class="n">'
        yield escape(t_7(environment.getattr(l_1_x, 'tokens_per_s')))
        yield '</td>\n'
        if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
            pass
            yield '<td class="n">'
            if (not t_12(environment.getattr(l_1_x, 'usd_per_mtok'))):
                pass
                yield escape(t_9(environment.getattr(l_1_x, 'usd_per_mtok')))
                if (environment.getattr(l_1_x, 'workload') == 'prefill'):
                    pass
                    yield ' (prompt)'
            else:
                pass
                yield '—'
            yield '</td>'
        yield '<td>'
        if environment.getattr(l_1_x, 'lever'):
            pass
            yield escape(t_1(environment.getattr(environment.getattr(l_1_x, 'lever'), 'change'), (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)))
            if environment.getattr(environment.getattr(l_1_x, 'lever'), 'gain'):
                pass
                yield ': '
                yield escape(t_7(environment.getattr(environment.getattr(l_1_x, 'lever'), 'gain')))
                yield '× '
                yield escape(context.call(environment.getattr({'latency': 'faster', 'roof': 'the roof'}, 'get'), environment.getattr(environment.getattr(l_1_x, 'lever'), 'effect'), environment.getattr(environment.getattr(l_1_x, 'lever'), 'effect'), _loop_vars=_loop_vars))
            else:
                pass
                yield ': '
                yield escape(environment.getattr(environment.getattr(l_1_x, 'lever'), 'effect'))
        else:
            pass
            yield '—'
        yield '</td></tr>\n'
    l_1_x = missing
    yield '</tbody></table></div>\n<p class="meta" data-static>Bounds are lower bounds on a step\'s time (the larger of bytes over bandwidth and FLOPs over peak); "other\nroof" is how many times shorter the next ledger is, and which: compute'
    if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
        pass
        yield ', bandwidth or the interconnect, all of one '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield "'s step"
    else:
        pass
        yield ' or bandwidth'
    yield '. '
    if t_5(context.eval_ctx, t_8(context, (undefined(name='decision') if l_0_decision is missing else l_0_decision), 'fits')):
        pass
        yield 'A row that does not fit\n(capacity binds) states the bound its step would have if it fitted; its lever is what makes it fit. '
    yield 'Tokens/s are upper bounds'
    if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
        pass
        yield ', per replica\n('
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus'))
        yield ' '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield escape(('s' if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus') > 1) else cond_expr_undefined("the inline if-expression on line 40 in 'sections/s0_summary.html.j2' evaluated to false and no else section was defined.")))
        yield '); B is the batch of one replica'
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp') > 1):
            pass
            yield ', and the '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
            yield ' data-parallel replicas serve '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
            yield ' B sequences'
    yield '. '
    if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
        pass
        yield 'Dollars per million\ntokens at the hourly price above, at the bound: generated tokens for decode, prompt tokens for prefill'
        if (undefined(name='par') if l_0_par is missing else l_0_par):
            pass
            yield ', for the\n'
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's of one replica'
        yield '.'
    if (undefined(name='prompt_group_note') if l_0_prompt_group_note is missing else l_0_prompt_group_note):
        pass
        yield ' '
        yield escape(t_10(t_1((undefined(name='prompt_group_note') if l_0_prompt_group_note is missing else l_0_prompt_group_note), (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))))
    if ((environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1) and environment.getattr((undefined(name='w') if l_0_w is missing else l_0_w), 'prefill_prompt')):
        pass
        yield ' A replica of '
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
        yield ' pipeline stages works on\n'
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
        yield ' prompts at once, admitting one every 1/'
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
        yield " of a prompt's pass: its prompt tokens/s"
        if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'price_per_hour'):
            pass
            yield ' and\nprice'
        yield ' count that.'
    yield '</p>\n</section>\n\n'

blocks = {}
debug_info = '1=101&5=114&6=116&7=128&8=140&9=148&10=160&11=179&12=185&13=219&14=223&15=245&16=258&19=265&22=280&23=286&25=290&27=294&28=304&29=313&30=329&31=340&32=347&33=349&34=363&38=382&39=395&40=398&41=414&42=417&43=429'