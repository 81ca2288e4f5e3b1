from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s7_gpus.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_many = resolve('many')
    l_0_par = resolve('par')
    l_0_ch = resolve('ch')
    l_0_GPU = resolve('GPU')
    l_0_model = resolve('model')
    l_0_q = resolve('q')
    l_0_facts = resolve('facts')
    l_0_par_links = resolve('par_links')
    l_0_par_ep_inside = resolve('par_ep_inside')
    l_0_frame = resolve('frame')
    l_0_par_kernels = resolve('par_kernels')
    l_0_hw = resolve('hw')
    l_0_par_costs = resolve('par_costs')
    l_0_par_left_out = resolve('par_left_out')
    l_0_par_table = resolve('par_table')
    l_0_par_overhead = resolve('par_overhead')
    l_0_par_prefill = resolve('par_prefill')
    l_0_verdicts = resolve('verdicts')
    l_0_precision = resolve('precision')
    l_0_figs = resolve('figs')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['bandwidth']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'bandwidth' found.")
    try:
        t_2 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_3 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_4 = environment.filters['kib']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'kib' found.")
    try:
        t_5 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_6 = environment.filters['max']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'max' found.")
    try:
        t_7 = environment.filters['memsize']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'memsize' found.")
    try:
        t_8 = environment.filters['micro']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'micro' found.")
    try:
        t_9 = environment.filters['min']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'min' found.")
    try:
        t_10 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_11 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_12 = environment.filters['short_link']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'short_link' found.")
    try:
        t_13 = environment.filters['sig3']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'sig3' found.")
    try:
        t_14 = environment.filters['symbols']
    except KeyError:
        @internalcode
        def t_14(*unused):
            raise TemplateRuntimeError("No filter named 'symbols' found.")
    try:
        t_15 = environment.filters['time']
    except KeyError:
        @internalcode
        def t_15(*unused):
            raise TemplateRuntimeError("No filter named 'time' found.")
    try:
        t_16 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_16(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    try:
        t_17 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_17(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s7_gpus.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s7_gpus.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s7_gpus.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s7_gpus.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    if ((undefined(name='many') if l_0_many is missing else l_0_many) or (undefined(name='par') if l_0_par is missing else l_0_par)):
        pass
        yield '<section id="s7">\n<h2>'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield '. Many '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield 's: the interconnect ledger</h2>\n'
        if (undefined(name='par') if l_0_par is missing else l_0_par):
            pass
            yield '<p data-static>This report lays the model out over <strong>'
            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'gpus'))
            yield ' '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield escape(('s' if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'gpus') > 1) else ''))
            yield '</strong>\n(tp '
            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'tp'))
            yield ' × pp '
            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'pp'))
            yield ' × dp '
            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'dp'))
            if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep') > 1):
                pass
                yield ', ep '
                yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep'))
                yield ' inside the tp·dp group'
            yield ').'
            if environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'uneven'):
                pass
                yield ' The '
                yield escape(t_5(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'stage_layers')))
                yield ' pipeline stages hold '
                yield escape(t_6(environment, environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'stage_layers')))
                yield ' or '
                yield escape(t_9(environment, environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'stage_layers')))
                yield ' of the '
                yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'layers'))
                yield ' layers;\nthe busiest sets each '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield "'s memory and time (n<sub>PP</sub> = "
                yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'layers'))
                yield ' / '
                yield escape(t_6(environment, environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'stage_layers')))
                yield ' = '
                yield escape(t_10(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'pp_split')))
                yield ' in the formulas). '
            yield ' Besides compute and HBM, a step now crosses a third ledger: the interconnect. Each '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' holds\n'
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'weight_bytes_per_gpu', 'gb'))
            yield ' of weights and '
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'kv_bytes_per_token_per_gpu', 'kib'))
            yield ' of KV cache\nper token'
            if context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_bounded_layers'):
                pass
                yield ' were every layer to cache every token (its '
                yield escape(t_2(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_layers')))
                yield ' '
                yield escape(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'kv_bounded_kind'))
                yield ' layers keep less: chapter '
                yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's4'))
                yield ' counts what a sequence holds)'
            yield '; one replica holds '
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'kv_capacity_tokens_replica', 'integer', 'no'))
            yield ' KV tokens'
            if context.call(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'get'), 'kv_bounded_layers'):
                pass
                yield ' at that rate'
            yield '.\n'
            for l_1_lg in (undefined(name='par_links') if l_0_par_links is missing else l_0_par_links):
                l_1_link = missing
                _loop_vars = {}
                pass
                l_1_link = environment.getattr(l_1_lg, 'link')
                _loop_vars['link'] = l_1_link
                yield escape(environment.getattr(l_1_lg, 'who'))
                yield ' '
                yield escape(('cross' if environment.getattr(l_1_lg, 'several') else 'crosses'))
                yield ' '
                yield escape(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'tier'))
                yield ': '
                yield escape(t_12(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'name')))
                yield ',\n'
                yield escape(t_1(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bandwidth_per_direction')))
                yield ' per direction'
                if environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'latency'):
                    pass
                    yield ', '
                    yield escape(t_15(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'latency')))
                    yield ' per step'
                if environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bus_bandwidth'):
                    pass
                    yield ', of which the collectives library reaches '
                    yield escape(t_1(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bus_bandwidth')))
                    if (environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bus_scope') == 'group'):
                        pass
                        yield ' (as measured on '
                        yield escape(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bus_group_gpus'))
                        yield ' '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield 's)'
                    elif (environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'bus_scope') == 'mesh'):
                        pass
                        yield " (the group's share of the mesh's links)"
                if environment.getattr(l_1_lg, 'switch'):
                    pass
                    yield '; its switch reduces in the network'
                yield '.'
                if environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'):
                    pass
                    yield ' It is two tiers: '
                    yield escape(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'local'))
                    yield ' of its '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's share each scale-up domain, '
                    yield escape(t_12(environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'name')))
                    yield ' at '
                    yield escape(t_1(environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'bandwidth_per_direction')))
                    yield ' per direction'
                    if environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'latency'):
                        pass
                        yield ', '
                        yield escape(t_15(environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'latency')))
                        yield ' per step'
                    if environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'bus_bandwidth'):
                        pass
                        yield ' (the library reaches '
                        yield escape(t_1(environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'bus_bandwidth')))
                        yield ')'
                    if environment.getattr(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'inner'), 'in_network'):
                        pass
                        yield ', its switch reducing'
                    yield ', and the '
                    yield escape(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'domains'))
                    yield ' domains exchange over the NICs: the bound counts the fewest bytes each '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield ' sends over its links and each node over its '
                    yield escape(environment.getattr((undefined(name='link') if l_1_link is missing else l_1_link), 'local'))
                    yield " NICs, the estimate the faster of the library's ring across the nodes (its bus bandwidth the node's NICs) and its hierarchical form (in the node, the shard across the nodes, in the node)."
                yield ' '
            l_1_lg = l_1_link = missing
            if (undefined(name='par_ep_inside') if l_0_par_ep_inside is missing else l_0_par_ep_inside):
                pass
                yield 'The ep group ('
                yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep'))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's) sends nothing: with ep ≤ tp its experts sit inside the tp group, each '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield " running its own on every token the attention's all-reduce leaves it, and the layer's closing all-reduce sums their outputs (no all-to-all). "
            for l_1_note in environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'notes'):
                _loop_vars = {}
                pass
                yield escape(t_16(l_1_note[:1]))
                yield escape(l_1_note[1:])
                if (not context.call(environment.getattr(l_1_note, 'endswith'), '.', _loop_vars=_loop_vars)):
                    pass
                    yield '.'
                yield ' '
            l_1_note = missing
            yield '</p>\n<p data-static>Two numbers per point, and they are not the same thing: the <strong>strict bound</strong> is the largest of the three\nper-'
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' ledgers (compute, HBM, interconnect perfectly overlapped), which no engine beats; the <strong>serial\nestimate</strong> puts the collectives ('
            yield escape((t_3(context.eval_ctx, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'collectives'), ', ') or 'none in this layout'))
            yield ') on the critical path, as real decode does,\n'
            if ((environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent') and (not environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'decode'))) and (not environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'launch'))):
                pass
                yield 'and charges no fixed cost per kernel: '
                yield escape(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent'))
                yield '; the costs measured on NVIDIA GPUs\nare not carried over, so this estimate is short of a real step by whatever the stack spends beside its bytes, FLOPs and\ncollectives (engine.graph_kernel and engine.kernel_launch give sourced values).'
            else:
                pass
                yield "and adds each kernel's fixed cost: "
                if (environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'kernels_per_layer') != environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'per_layer')):
                    pass
                    yield escape(t_13(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'kernels_per_layer')))
                    yield ' kernels a layer on average over its layers ('
                    yield escape(t_2(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'per_layer')))
                    yield ' in a dense layer; an MoE layer adds its router, top-k and grouped GEMMs)'
                else:
                    pass
                    yield escape(t_2(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'per_layer')))
                    yield ' kernels a layer'
                yield ' at '
                if (environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent') and (not environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'decode'))):
                    pass
                    yield 'none in decode (no sourced value: '
                    yield escape(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent'))
                    yield ')'
                else:
                    pass
                    yield escape(t_15(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'decode')))
                    yield ' each in decode\n('
                    if environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'cuda_graphs'):
                        pass
                        yield 'its share of a '
                        yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'graph'))
                        yield ' replay'
                    else:
                        pass
                        yield 'a launch: decode runs without '
                        yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'graph'))
                        yield 's'
                    yield ')'
                yield ' and\n'
                if (environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent') and (not environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'launch'))):
                    pass
                    yield 'none in prefill (no sourced value: '
                    yield escape(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'absent'))
                    yield ')'
                else:
                    pass
                    yield escape(t_15(environment.getattr((undefined(name='par_kernels') if l_0_par_kernels is missing else l_0_par_kernels), 'launch')))
                    yield ' each in prefill (launched one by one)'
                yield ". Where those fixed costs are the estimate's largest term the step is\n<strong>overhead-bound</strong>, seed 000's third state: fewer, fused kernels or "
                yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'graph'))
                yield 's help, not a faster '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield '.'
            yield '\nA batch is per replica'
            if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'dp') > 1):
                pass
                yield ' (data-parallel rank): the '
                yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'dp'))
                yield ' replicas serve '
                yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'dp'))
                yield ' times as many sequences'
            yield '.</p>\n'
            if (undefined(name='par_costs') if l_0_par_costs is missing else l_0_par_costs):
                pass
                yield "<p data-static>How a collective is costed. The bound's all-reduce sends the fewest bytes any algorithm must send and waits\none step of the link; the estimate charges what the library runs: a fixed cost per call, every step of its ring, at the\nbus bandwidth it measures on the link"
                if (environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce') and environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocols')):
                    pass
                    yield ", with the protocol (LL, LL128, Simple) its tuner runs for each message, which prices them at the link's line rate"
                    if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'simple_measured'):
                        pass
                        yield ' (Simple then charged '
                        yield escape(t_8(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'simple_call')))
                        yield ' a call and '
                        yield escape(t_8(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'simple_step')))
                        yield ' a step, as nccl-tests measure it, where the tuner prices it at '
                        yield escape(t_8(environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'simple_priced'), 0)))
                        yield ' and '
                        yield escape(t_8(environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'simple_priced'), 1)))
                        yield ')'
                if environment.getattr(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'links'), 'tp'), 'in_network'):
                    pass
                    yield ', or its in-switch all-reduce where that is faster'
                if (environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce') and (not t_17(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot')))):
                    pass
                    if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot_by') == 'library'):
                        pass
                        yield ', or its all-pairs algorithm on the mesh (each '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield " reads its peers' bytes over its own link, one step)"
                    else:
                        pass
                        yield ", or the engine's one-shot kernel (engine.all_reduce: one-shot)"
                    yield ' where that is faster still'
                yield '. '
                if environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'):
                    pass
                    yield 'One batch-1 all-reduce of '
                    yield escape(t_4(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'message_bytes')))
                    yield ' over the '
                    yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'gpus'))
                    yield ' tensor-parallel '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's costs at least\n'
                    yield escape(t_8(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'bound')))
                    yield '; '
                    if ((environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'picked') == 'one-shot') and (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot_by') == 'library')):
                        pass
                        yield "the library's all-pairs algorithm"
                    elif (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'picked') == 'one-shot'):
                        pass
                        yield "the engine's one-shot kernel"
                    else:
                        pass
                        yield 'the library'
                    yield ' takes '
                    yield escape(t_8(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'estimate')))
                    yield ' ('
                    if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'picked') != 'one-shot'):
                        pass
                        yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'picked'))
                        if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocols') and environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocol')):
                            pass
                            yield ' with '
                            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocol'))
                        if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'call_latency'):
                            pass
                            yield ',\n'
                    if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'call_latency'):
                        pass
                        yield escape(t_8(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'call_latency')))
                        yield ' of it the fixed cost of the call'
                    yield ')'
                    if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot_up_to_bytes'):
                        pass
                        yield '. It sends n − 1 times the message, the ring 2 (n − 1) / n times: it stays the faster up to '
                        yield escape(t_4(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot_up_to_bytes')))
                        yield ' a call, a batch of '
                        yield escape(t_10(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'one_shot_up_to_batch')))
                        yield ' per replica here ('
                        yield escape(t_4(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'message_bytes')))
                        yield ' a sequence), and the '
                        if (not t_17(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'in_switch'))):
                            pass
                            yield "library's other algorithms"
                        else:
                            pass
                            yield 'ring'
                        yield ' above it'
                    yield '.'
                    if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocol_changes'):
                        pass
                        yield " As the batch grows the tuner changes the ring's protocol: "
                        l_1_loop = missing
                        for l_1_c, l_1_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_reduce'), 'protocol_changes'), undefined):
                            _loop_vars = {}
                            pass
                            yield escape(('' if environment.getattr(l_1_loop, 'first') else (' and ' if environment.getattr(l_1_loop, 'last') else ', ')))
                            yield 'from '
                            yield escape(environment.getitem(l_1_c, 'from'))
                            yield ' to '
                            yield escape(environment.getitem(l_1_c, 'to'))
                            yield ' at '
                            yield escape(t_7(environment.getattr(l_1_c, 'bytes')))
                            yield ' a call, a batch of '
                            yield escape(t_10(environment.getattr(l_1_c, 'batch')))
                            yield ' per replica'
                        l_1_loop = l_1_c = missing
                        yield '.'
                if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep') > environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'tp')):
                    pass
                    yield " The experts' all-to-alls: the bound sends each token once to each "
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield " (and node)\nthat holds one of its experts, one byte an element, the least a published kernel sends (DeepEP's FP8 dispatch), at line rate; the estimate charges "
                    if (environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'all_to_all') == 'deepep'):
                        pass
                        yield "DeepEP's kernels (engine.all_to_all: deepep):\nthe dispatch in FP8 and its scales, the combine in BF16, every peer posted at once, at DeepEP's published shares of the line rate,\nits low-latency kernels in decode and its normal ones in prefill"
                    else:
                        pass
                        yield "the library's, the activations in "
                        yield escape(t_2(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'activation_bytes')))
                        yield " bytes an element and the peers\none after another (engine.all_to_all: deepep charges DeepEP's kernels)"
                    yield '.'
                if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep') > 1):
                    pass
                    yield " The estimate's round also waits for the\n"
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield " that holds the most of the batch's experts: its reads are u<sub>x</sub> times the mean (the expected maximum when\ntokens pick experts uniformly at random)"
                    if environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_experts'):
                        pass
                        yield '; with '
                        yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_experts'))
                        yield ' redundant experts (engine.redundant_experts) '
                        if (environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_spread'), 0) != environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_spread'), 1)):
                            pass
                            yield 'the '
                            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep'))
                            yield ' '
                            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                            yield 's of the expert group hold '
                            yield escape(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_experts'))
                            yield ' replica slots more ('
                            yield escape(t_10(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_per_gpu')))
                            yield ' a '
                            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                            yield ' on average: '
                            yield escape(environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_spread'), 0))
                            yield ' or '
                            yield escape(environment.getitem(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_spread'), 1))
                            yield ' each)'
                        else:
                            pass
                            yield 'each '
                            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                            yield ' holds '
                            yield escape(t_10(environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_per_gpu')))
                            yield ' replica slot'
                            yield escape(('s' if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'redundant_per_gpu') != 1) else ''))
                            yield ' more'
                        yield ", and the engine hands a replicated expert's tokens to the least-loaded holder, which lowers that maximum"
                    yield '.'
                yield '</p>\n'
                for l_1_c in (undefined(name='par_costs') if l_0_par_costs is missing else l_0_par_costs):
                    _loop_vars = {}
                    pass
                    yield '<div class="formula" data-static><div class="label">'
                    yield escape(t_14(environment.getattr(l_1_c, 'title')))
                    if (not t_17(environment.getattr(l_1_c, 'value'))):
                        pass
                        yield ': '
                        yield escape((t_8(environment.getattr(l_1_c, 'value')) if context.call(environment.getattr(environment.getattr(l_1_c, 'id'), 'startswith'), 'all_', _loop_vars=_loop_vars) else t_15(environment.getattr(l_1_c, 'value'))))
                        yield ' here'
                    yield '</div>'
                    yield escape(t_11(environment.getattr(l_1_c, 'math')))
                    yield '</div>\n'
                l_1_c = missing
            if environment.getattr((undefined(name='par_left_out') if l_0_par_left_out is missing else l_0_par_left_out), 'decode'):
                pass
                yield "<p data-static>The kernels' fixed costs of a decode round: no sourced per-kernel cost on "
                yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
                yield '; left out of the estimate (the tables say so in their column).</p>\n'
            else:
                pass
                yield '<div class="formula" data-static><div class="label">the estimate: the kernels\' fixed costs of a decode round, one '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                if (undefined(name='par_table') if l_0_par_table is missing else l_0_par_table):
                    pass
                    yield ': '
                    yield escape(t_15(environment.getattr(environment.getitem((undefined(name='par_table') if l_0_par_table is missing else l_0_par_table), 0), 'overhead')))
                    yield ' at batch '
                    yield escape(t_2(environment.getattr(environment.getitem((undefined(name='par_table') if l_0_par_table is missing else l_0_par_table), 0), 'batch')))
                yield '</div>'
                yield escape(t_11((undefined(name='par_overhead') if l_0_par_overhead is missing else l_0_par_overhead)))
                yield '</div>\n'
            if (undefined(name='par_table') if l_0_par_table is missing else l_0_par_table):
                pass
                yield '<div class="scroll"><table>\n<thead><tr><th>batch, context</th><th class="n">bound</th><th class="n">serial estimate</th><th class="n">interconnect'
                if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
                    pass
                    yield ' of one stage'
                yield ', at least</th><th class="n">collectives'
                if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
                    pass
                    yield ' of one stage'
                yield ', as run</th><th class="n">kernels\' fixed costs'
                if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
                    pass
                    yield ', one stage'
                yield '</th><th>binds</th><th>estimate\'s largest term</th><th class="n">tok/s per '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield '</th></tr></thead>\n<tbody data-live="par_table">'
                for l_1_row in (undefined(name='par_table') if l_0_par_table is missing else l_0_par_table):
                    _loop_vars = {}
                    pass
                    yield '<tr><td>'
                    yield escape(t_2(environment.getattr(l_1_row, 'batch')))
                    yield ', '
                    yield escape(t_2(environment.getattr(l_1_row, 'context')))
                    yield '</td><td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'bound')))
                    yield '</td>\n<td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'serial')))
                    yield '</td><td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'comm')))
                    yield '</td><td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'comm_est')))
                    yield '</td><td class="n">'
                    if environment.getattr((undefined(name='par_left_out') if l_0_par_left_out is missing else l_0_par_left_out), 'decode'):
                        pass
                        yield 'left out'
                    else:
                        pass
                        yield escape(t_15(environment.getattr(l_1_row, 'overhead')))
                    yield '</td><td>'
                    yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), environment.getattr(l_1_row, 'binds'), _loop_vars=_loop_vars))
                    yield '</td><td>'
                    yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), environment.getattr(l_1_row, 'estimate_binds'), _loop_vars=_loop_vars))
                    yield '</td>\n<td class="n">'
                    if (environment.getattr(l_1_row, 'binds') != 'capacity'):
                        pass
                        yield escape(t_10(environment.getattr(l_1_row, 'tps_gpu')))
                    else:
                        pass
                        yield '—'
                    yield '</td></tr>\n'
                l_1_row = missing
                yield '</tbody>\n</table></div>'
            if (undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill):
                pass
                yield '<div class="scroll"><table>\n<thead><tr><th>prompt</th><th class="n">bound</th><th class="n">serial estimate</th><th class="n">collectives, as run</th><th class="n">kernels\' fixed costs, a stage</th><th>estimate\'s largest term</th></tr></thead>\n<tbody data-live="par_prefill">'
                for l_1_row in (undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill):
                    _loop_vars = {}
                    pass
                    yield '<tr><td>'
                    yield escape(t_2(environment.getattr(l_1_row, 'tokens')))
                    if (not environment.getattr(l_1_row, 'fits')):
                        pass
                        yield ' (does not fit)'
                    yield '</td><td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'bound')))
                    yield '</td><td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'serial')))
                    yield '</td>\n<td class="n">'
                    yield escape(t_15(environment.getattr(l_1_row, 'comm_est')))
                    yield '</td><td class="n">'
                    if environment.getattr((undefined(name='par_left_out') if l_0_par_left_out is missing else l_0_par_left_out), 'prefill'):
                        pass
                        yield 'left out'
                    else:
                        pass
                        yield escape(t_15(environment.getattr(l_1_row, 'overhead')))
                    yield '</td><td>'
                    yield escape(context.call((undefined(name='pill') if l_0_pill is missing else l_0_pill), environment.getattr(l_1_row, 'estimate_binds'), _loop_vars=_loop_vars))
                    yield '</td></tr>\n'
                l_1_row = missing
                yield '</tbody>\n</table></div>'
                if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
                    pass
                    yield '<p data-static>Across the '
                    yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
                    yield " pipeline stages the prefill's bound lets a schedule split each prompt into pieces that walk the stages in\nturn (TeraPipe, Li et al., ICML 2021; SGLang's chunked pipeline parallelism): the last stage starts once the first piece has passed the others, so "
                    yield escape(t_2(environment.getattr(environment.getitem((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill), 0), 'tokens')))
                    yield ' tokens take\nat least '
                    yield escape(t_15(environment.getattr(environment.getitem((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill), 0), 'bound')))
                    yield ", the time to first token page 1 states. An engine that passes the whole prompt stage after stage, as vLLM and TensorRT-LLM do, takes at\nleast the prompt's pass, each stage's ledger in turn: "
                    yield escape(t_15(environment.getattr(environment.getitem((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill), 0), 'occupancy')))
                    if (t_5((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill)) > 1):
                        pass
                        yield ' ('
                        yield escape(t_15(environment.getattr(environment.getitem((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill), -1), 'occupancy')))
                        yield ' for '
                        yield escape(t_2(environment.getattr(environment.getitem((undefined(name='par_prefill') if l_0_par_prefill is missing else l_0_par_prefill), -1), 'tokens')))
                        yield ' tokens)'
                    yield ', the schedule the serial estimate takes.\nThe pass is what a prompt occupies the stages for, whatever the schedule: the rates and prices take it.</p>'
            yield "<p>The tensor-parallel degree where the batch-1 all-reduces, as the library's ring runs them, take as long as streaming the weight slice is\n"
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'tp_weight_crossover', 'num'))
            yield "; the link's ridge (peak FLOP/s over link bandwidth) is\n"
            yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'link_ridge', 'num'))
            yield ' FLOP per byte sent'
            if (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'tp') > 1):
                pass
                yield ', against '
                yield escape(context.call((undefined(name='q') if l_0_q is missing else l_0_q), 'tp_link_intensity', 'num'))
                yield ' for the\ntensor-parallel all-reduces of this model'
            yield '. '
            if ((undefined(name='many') if l_0_many is missing else l_0_many) and ((environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'tp') != environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'gpus')) or (environment.getattr(environment.getattr((undefined(name='par') if l_0_par is missing else l_0_par), 'parallelism'), 'ep') > 1))):
                pass
                yield '<span data-static>The two figures below sweep tensor parallelism alone (one replica of 1 to '
                yield escape(environment.getattr(environment.getitem(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'scaling_batch1'), -1), 'gpus'))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield "s, the degrees up to 64 that split the model's heads), not this report's layout\n("
                yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
                yield '): they show what a tensor-parallel replica would buy.</span>'
            yield '</p>\n'
        elif (not environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'weights_fit')):
            pass
            yield '<p data-static>One '
            yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
            yield ' cannot hold this model at '
            yield escape(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weights'))
            yield '.\n'
            if environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'):
                pass
                yield 'The smallest layout in '
                yield escape(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weights'))
                yield ' is <strong>'
                yield escape(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'gpus'))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's</strong>\n(tp '
                yield escape(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'tp'))
                if (environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'pp') > 1):
                    pass
                    yield ' × pp '
                    yield escape(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'pp'))
                yield '): at batch 1 and context\n'
                yield escape(t_2(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'context')))
                yield ' its strict bound is '
                yield escape(t_15(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'time_bound')))
                yield ' per token (serial estimate\n'
                yield escape(t_15(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'time_serial')))
                yield '), '
                yield escape(t_10(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'tokens_per_s_gpu')))
                yield ' tok/s per '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield ', and one replica holds\n'
                yield escape(t_2(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'capacity_batch')))
                yield ' sequence'
                if (environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest'), 'capacity_batch') != 1):
                    pass
                    yield 's'
                yield ' of that context. '
            if (environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any') and (environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any'), 'precision') != environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weights'))):
                pass
                yield 'With '
                yield escape(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any'), 'precision'))
                yield ' weights'
                yield escape((' computed in bf16' if environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any'), 'weight_only') else ''))
                yield '\n'
                yield escape(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any'), 'gpus'))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                if (environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'smallest_any'), 'gpus') > 1):
                    pass
                    yield 's suffice'
                else:
                    pass
                    yield ' suffices'
                yield '. '
            yield 'The chart and the fit map below show what more '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's buy.</p>\n'
        else:
            pass
            yield '<p data-static>One '
            yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
            yield " holds the model, so this report's interconnect ledger is empty. Spread over more "
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's with\ntensor parallelism over '
            yield escape((environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'link') or 'the scale-up link'))
            yield ', compute and HBM time shrink as 1/n while every token\npays two all-reduces per layer:</p>\n'
        if (undefined(name='many') if l_0_many is missing else l_0_many):
            pass
            yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig8-gpus'))
            yield '\n'
            if environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'tp_fits'):
                pass
                yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig9-gpu-rates'))
            elif ('fig9-gpu-rates' in (undefined(name='figs') if l_0_figs is missing else l_0_figs)):
                pass
                yield '<p data-static>'
                yield escape(environment.getattr(environment.getitem((undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig9-gpu-rates'), 'caption'))
                yield '</p>'
            yield '<h3>Fit map: the fewest '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's that hold one sequence</h3>\n<div class="scroll" data-static><table>\n<thead><tr><th>weights</th>'
            for l_1_s in environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'fit_contexts'):
                _loop_vars = {}
                pass
                yield '<th class="n">context '
                yield escape(t_2(l_1_s))
                yield '</th>'
            l_1_s = missing
            yield '</tr></thead>\n<tbody>'
            for (l_1_name, l_1_counts) in context.call(environment.getattr(environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'fit_map'), 'items')):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(l_1_name)
                if (l_1_name in environment.getattr((undefined(name='many') if l_0_many is missing else l_0_many), 'weight_only')):
                    pass
                    yield ' (W8A16)'
                yield '</td>'
                for l_2_n in l_1_counts:
                    _loop_vars = {}
                    pass
                    yield '<td class="n">'
                    if t_17(l_2_n):
                        pass
                        yield 'over 4,096'
                    else:
                        pass
                        yield escape(t_2(l_2_n))
                    yield '</td>'
                l_2_n = missing
                yield '</tr>'
            l_1_name = l_1_counts = missing
            yield '</tbody>\n</table></div>\n<p class="meta" data-static>Tensor × pipeline layouts on '
            yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
            yield '; pp divides the layers or is a power of two (uneven stages: the busiest counted); KV cache for batch 1.\nCollectives in the alpha-beta model with '
            if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'collectives'):
                pass
                yield escape(environment.getattr(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'collectives'), 'library'))
                yield "'s"
            else:
                pass
                yield "nccl-tests' bus-bandwidth"
            yield ' conventions: at least the fewest bytes and one step for the bound, '
            if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'collectives'):
                pass
                yield "the\nlibrary's ring (a fixed cost per call, 2(n−1) steps, its measured bus bandwidth)"
            else:
                pass
                yield "a ring (2(n−1) steps at the links' measured bus bandwidth; the hardware file names no collectives library, so no fixed cost per call)"
            yield ' for the estimate.</p>\n'
        else:
            pass
            yield "<p data-static>This spec decodes nothing, so the chapter has no decode rounds to scale and no fit map: both are over\na decode step's batch and context.</p>\n"
        yield '</section>\n'
    yield '\n'

blocks = {}
debug_info = '1=134&2=146&4=149&5=153&6=156&7=161&8=183&9=192&10=194&11=198&12=214&13=228&14=256&15=295&17=306&18=308&19=310&21=318&22=338&23=350&24=360&25=365&26=373&28=376&29=408&30=414&31=438&32=484&34=490&35=493&36=496&37=498&38=532&40=546&41=554&43=564&44=567&45=581&46=591&47=608&50=617&52=620&53=633&55=646&56=649&57=651&58=653&59=655&62=665&63=667&64=675&65=678&66=682&67=685&68=688&69=692&70=701&71=707&72=711&73=717&74=723&75=730&76=741&78=746&79=750&82=752&83=754&84=756&85=765&87=767&88=775&90=799&91=801'