from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s6_levers.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_ch = resolve('ch')
    l_0_frame = resolve('frame')
    l_0_GPU = resolve('GPU')
    l_0_whatifs = resolve('whatifs')
    l_0_sensitivities = resolve('sensitivities')
    l_0_model = resolve('model')
    l_0_derated = resolve('derated')
    l_0_r = resolve('r')
    l_0_hw = resolve('hw')
    l_0_precision = resolve('precision')
    l_0_compare = resolve('compare')
    l_0_compare_text = resolve('compare_text')
    l_0_Gpu = resolve('Gpu')
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['bandwidth']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'bandwidth' found.")
    try:
        t_2 = environment.filters['elasticity']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'elasticity' found.")
    try:
        t_3 = environment.filters['gib']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'gib' found.")
    try:
        t_4 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_5 = environment.filters['kib']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'kib' found.")
    try:
        t_6 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_7 = environment.filters['nearest']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'nearest' found.")
    try:
        t_8 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_9 = environment.filters['params']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'params' found.")
    try:
        t_10 = environment.filters['rate']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'rate' found.")
    try:
        t_11 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_12 = environment.filters['sort']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'sort' found.")
    try:
        t_13 = environment.filters['times']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'times' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s6_levers.html.j2').make_module(context.get_all(), True, {'figure': l_0_figure, 'formula': l_0_formula, 'pill': l_0_pill})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s6_levers.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s6_levers.html.j2') does not export the requested name 'figure'", name='figure')
    l_0_pill = getattr(included_template, 'pill', missing)
    if l_0_pill is missing:
        l_0_pill = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s6_levers.html.j2') does not export the requested name 'pill'", name='pill')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure, 'pill': l_0_pill})
    context.exported_vars.difference_update(('formula', 'figure', 'pill'))
    yield '<section id="s6">\n<h2>'
    yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's6'))
    yield ". What would change it</h2>\n<p>Every optimisation either does more work per trip to memory (batching, longer prompts) or moves fewer bytes per trip\n(quantization, smaller KV caches, fusion, FlashAttention). For this pair, each lever's effect on its ledger"
    if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
        pass
        yield '<span data-static>\n(on '
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
        yield " the times are a replica's batch-1 round with no KV cache, chapter "
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield "'s bound at context 0: the largest of each "
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield "'s\ncompute, its slice of the weights and its links"
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
            pass
            yield ', through the '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield ' pipeline stages one after another'
        yield '; where the links hold that round, a lever of the\n'
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield "'s own gains only as far as they allow, as its caveat says)</span>"
    yield ':</p>\n<div class="scroll"><table><thead>\n<tr><th>change</th><th>lever</th><th class="n">before</th><th class="n">after</th><th class="n">gain</th><th>caveat</th></tr></thead><tbody data-live="levers">\n'
    for l_1_row in (undefined(name='whatifs') if l_0_whatifs is missing else l_0_whatifs):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_row, 'change'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_row, 'what'))
        yield '</td><td class="n">'
        yield escape(environment.getattr(l_1_row, 'before'))
        yield '</td><td class="n">'
        yield escape(environment.getattr(l_1_row, 'after'))
        yield '</td>\n<td class="n">'
        yield escape(t_13(environment.getattr(l_1_row, 'gain')))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_row, 'note'))
        yield '</td></tr>\n'
    l_1_row = missing
    yield "</tbody></table></div>\n<p>Weight-only quantization shrinks the denominator (bytes per step); FP8 compute raises the ceiling (peak FLOP/s). They are\ndifferent levers and should not share the word “quantization”. Operator fusion saves the round trips of small tensors\n(normalisation, SwiGLU's elementwise product, RoPE), whose intensity is in single digits; FlashAttention keeps the S × S score\ntable out of memory altogether, with the FLOPs unchanged.</p>\n<div data-static>\n"
    if (undefined(name='sensitivities') if l_0_sensitivities is missing else l_0_sensitivities):
        pass
        yield '<h3>What moves each number</h3>\n<p>The elasticity d ln q / d ln x says what a 1% change of input x does to quantity q, in percent. Each is derived by\nSymPy (x ∂q/∂x / q) and evaluated for this pair; 0 means the input does not enter where the pair sits (for example,\npeak compute while decode is bandwidth-bound)'
        if environment.getattr((undefined(name='sensitivities') if l_0_sensitivities is missing else l_0_sensitivities), 'tiny'):
            pass
            yield ', ≈0 that it enters by less than 0.0005'
        yield '.'
        if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'):
            pass
            yield " For a mixture of experts N is the weights a step reads, which grow with the batch as its tokens touch more experts; an elasticity\nholds them fixed, so the batch's is left out."
        yield '</p>\n<div class="scroll"><table><thead>\n<tr><th>quantity</th>'
        for l_1_s in environment.getattr((undefined(name='sensitivities') if l_0_sensitivities is missing else l_0_sensitivities), 'symbols_math'):
            _loop_vars = {}
            pass
            yield '<th class="n">'
            yield escape(t_11(l_1_s))
            yield '</th>'
        l_1_s = missing
        yield '</tr></thead><tbody>\n'
        for l_1_row in environment.getattr((undefined(name='sensitivities') if l_0_sensitivities is missing else l_0_sensitivities), 'rows'):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_row, 'label'))
            yield '</td>'
            for l_2_v in environment.getitem(l_1_row, 'values'):
                _loop_vars = {}
                pass
                yield '<td class="n">'
                yield escape(t_2(l_2_v))
                yield '</td>'
            l_2_v = missing
            yield '</tr>\n'
        l_1_row = missing
        yield '</tbody></table></div>\n'
    if (undefined(name='derated') if l_0_derated is missing else l_0_derated):
        pass
        yield "<h3>Derated estimate</h3>\n<p>The derated estimate is the ideal bound with the peaks scaled by the spec's achievable fractions, η<sub>W</sub> =\n"
        yield escape(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'bandwidth'))
        yield ' of the bandwidth and η<sub>P</sub> = '
        yield escape(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'compute'))
        yield ' of the compute\n('
        yield escape(environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'source'), 'title'))
        yield '). It is an estimate beside the bound, not a bound.'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield " At this layout its\ntokens/s are one replica's: the strict bound of a round in chapter "
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
            yield ' (each '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s compute, HBM and link\nledgers, through the pipeline) with the two peaks scaled and the links at their own rates."
        yield '</p>\n'
        if environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'):
            pass
            yield '<div class="scroll"><table><thead>\n<tr><th class="n">batch</th>'
            for l_1_s in environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'), 'context'):
                _loop_vars = {}
                pass
                yield '<th class="n">context '
                yield escape(t_4(l_1_s))
                yield ': ideal → derated</th>'
            l_1_s = missing
            yield '</tr></thead><tbody>\n'
            l_1_loop = missing
            for l_1_b, l_1_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'), 'batch'), undefined):
                l_1_i = missing
                _loop_vars = {}
                pass
                l_1_i = environment.getattr(l_1_loop, 'index0')
                _loop_vars['i'] = l_1_i
                if ((((undefined(name='i') if l_1_i is missing else l_1_i) == 0) or environment.getattr(l_1_loop, 'last')) or (l_1_b in (8, 64, 512))):
                    pass
                    yield '<tr><td class="n">'
                    yield escape(t_4(l_1_b))
                    yield '</td>'
                    l_2_loop = missing
                    for l_2_s, l_2_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'), 'context'), undefined):
                        l_2_j = missing
                        _loop_vars = {}
                        pass
                        l_2_j = environment.getattr(l_2_loop, 'index0')
                        _loop_vars['j'] = l_2_j
                        yield '<td class="n">'
                        yield escape(t_8(environment.getitem(environment.getitem(environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'), 'ideal_tokens_per_s'), (undefined(name='i') if l_1_i is missing else l_1_i)), (undefined(name='j') if l_2_j is missing else l_2_j))))
                        yield ' → '
                        yield escape(t_8(environment.getitem(environment.getitem(environment.getattr(environment.getattr((undefined(name='derated') if l_0_derated is missing else l_0_derated), 'decode'), 'tokens_per_s'), (undefined(name='i') if l_1_i is missing else l_1_i)), (undefined(name='j') if l_2_j is missing else l_2_j))))
                        yield ' tok/s</td>'
                    l_2_loop = l_2_s = l_2_j = missing
                    yield '</tr>\n'
            l_1_loop = l_1_b = l_1_i = missing
            yield '</tbody></table></div>\n'
    if environment.getattr((undefined(name='r') if l_0_r is missing else l_0_r), 'compare_models'):
        pass
        yield '<h3>Other models on this '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield '</h3>\n<div class="scroll"><table><thead>\n<tr><th>model</th><th class="n">parameters</th><th class="n">weights</th><th class="n">KV per token</th><th class="n">batch-1 bound</th>\n<th class="n">ceiling at '
        yield escape(t_4(environment.getattr(environment.getitem(environment.getattr((undefined(name='r') if l_0_r is missing else l_0_r), 'compare_models'), 0), 'context')))
        yield '</th><th class="n">critical context</th><th class="n">sequences that fit</th></tr></thead><tbody>\n'
        for l_1_m in t_12(environment, environment.getattr((undefined(name='r') if l_0_r is missing else l_0_r), 'compare_models'), attribute='decode_tokens_per_s', reverse=True):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_m, 'title'))
            if environment.getattr(l_1_m, 'is_base'):
                pass
                yield ' ('
                yield escape(("this report's model" if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many') else 'this report'))
                yield ')'
            yield '</td><td class="n">'
            yield escape(t_9(environment.getattr(l_1_m, 'parameters')))
            if (environment.getattr(l_1_m, 'active') != environment.getattr(l_1_m, 'parameters')):
                pass
                yield ' ('
                yield escape(t_9(environment.getattr(l_1_m, 'active')))
                yield ' active)'
            yield '</td>\n<td class="n">'
            yield escape(t_3(environment.getattr(l_1_m, 'weight_bytes')))
            if (not environment.getattr(l_1_m, 'fits')):
                pass
                yield ' <span class="bad">does not fit</span>'
            yield '</td><td class="n">'
            yield escape(t_5(environment.getattr(l_1_m, 'kv_bytes_per_token')))
            yield '</td>\n<td class="n">'
            yield escape(t_8(environment.getattr(l_1_m, 'decode_tokens_per_s')))
            yield ' tok/s</td><td class="n">'
            yield escape(t_8(environment.getattr(l_1_m, 'ceiling')))
            yield '</td>\n<td class="n">'
            if environment.getattr(l_1_m, 'critical_context'):
                pass
                yield escape(t_7(environment.getattr(l_1_m, 'critical_context')))
            else:
                pass
                yield 'none'
            yield '</td><td class="n">'
            yield escape(t_4(environment.getattr(l_1_m, 'capacity_batch')))
            yield '</td></tr>\n'
        l_1_m = missing
        yield '</tbody></table></div>\n<p class="meta">Ranked by the batch-1 decode bound (weights only) on '
        yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
        yield ' in '
        yield escape(context.call(environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'label'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'dense')))
        yield '. Parameter counts, active ones included, count the embedding and the output head.'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield ' Each model is whole on one '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ", the scope of a comparison of models, not spread as this report's "
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
            yield ' over '
            yield escape(t_4(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'gpus')))
            yield ' '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's (chapter '
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
            yield ').'
        yield '</p>\n'
    if (t_6((undefined(name='compare') if l_0_compare is missing else l_0_compare)) > 1):
        pass
        yield '<h3>Other '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield 's</h3>\n<p>'
        yield escape((undefined(name='compare_text') if l_0_compare_text is missing else l_0_compare_text))
        yield '</p>\n<div class="scroll"><table><thead>\n<tr><th>'
        yield escape((undefined(name='Gpu') if l_0_Gpu is missing else l_0_Gpu))
        yield '</th><th class="n">peak</th><th class="n">bandwidth</th><th class="n">ridge</th><th class="n">batch-1 bound</th><th class="n">compute ×</th><th class="n">decode ×</th><th>weights fit</th><th class="n">tokens per $</th></tr></thead><tbody>\n'
        for l_1_c in t_12(environment, (undefined(name='compare') if l_0_compare is missing else l_0_compare), attribute='decode_tokens_per_s', reverse=True):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_c, 'title'))
            if environment.getattr(l_1_c, 'is_base'):
                pass
                yield ' ('
                yield escape((markup_join(("this report's ", (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU), )) if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many') else 'this report'))
                yield ')'
            yield '</td><td class="n">'
            yield escape(t_10(environment.getattr(l_1_c, 'peak')))
            yield '</td><td class="n">'
            yield escape(t_1(environment.getattr(l_1_c, 'bandwidth')))
            yield '</td>\n<td class="n">'
            yield escape(t_8(environment.getattr(l_1_c, 'ridge')))
            yield '</td><td class="n">'
            yield escape(t_8(environment.getattr(l_1_c, 'decode_tokens_per_s')))
            yield ' tok/s</td><td class="n">'
            yield escape(t_13(environment.getattr(l_1_c, 'compute_ratio')))
            yield '</td>\n<td class="n">'
            yield escape(t_13(environment.getattr(l_1_c, 'decode_speedup')))
            yield '</td><td>'
            yield escape(('yes' if environment.getattr(l_1_c, 'fits') else 'no'))
            yield '</td>\n<td class="n">'
            if environment.getattr(l_1_c, 'tokens_per_usd'):
                pass
                yield escape(t_8(environment.getattr(l_1_c, 'tokens_per_usd')))
            else:
                pass
                yield '—'
            yield '</td></tr>\n'
        l_1_c = missing
        yield '</tbody></table></div>\n<p class="meta">Ranked by the batch-1 decode bound (weights only). Tokens per dollar use the indicative hourly prices in the hardware specs.'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
            pass
            yield ' Each '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield " holds the whole model, the scope of a comparison of cards, not this report's "
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
            yield ' over '
            yield escape(t_4(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'gpus')))
            yield ' '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield 's (chapter '
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
            yield ').'
        yield '</p>\n'
    yield '</div>\n</section>\n'

blocks = {}
debug_info = '1=103&3=116&5=118&6=121&7=127&8=133&11=136&12=140&13=148&21=154&25=157&28=165&29=173&30=177&34=189&37=192&38=196&39=201&41=206&43=209&44=218&45=227&46=237&51=245&52=248&55=250&56=252&57=256&58=270&59=277&60=281&63=292&65=310&66=313&67=315&69=317&70=319&71=323&72=334&73=340&74=344&77=353'