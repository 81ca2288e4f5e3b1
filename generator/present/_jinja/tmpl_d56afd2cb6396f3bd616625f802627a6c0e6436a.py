from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s9_serving.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_serving = resolve('serving')
    l_0_n = resolve('n')
    l_0_par = resolve('par')
    l_0_ch = resolve('ch')
    l_0_GPU = resolve('GPU')
    l_0_verdicts = resolve('verdicts')
    l_0_sc = resolve('sc')
    l_0_whole_prompt = resolve('whole_prompt')
    l_0_hw = resolve('hw')
    l_0_spx = resolve('spx')
    l_0_fr = resolve('fr')
    l_0_eq = resolve('eq')
    l_0_frontier_text = resolve('frontier_text')
    l_0_figs = resolve('figs')
    l_0_spec_row = resolve('spec_row')
    l_0_pools_row = resolve('pools_row')
    l_0_frame = resolve('frame')
    l_0_fx = resolve('fx')
    l_0_model = resolve('model')
    l_0_goodput_clause = resolve('goodput_clause')
    l_0_ra = resolve('ra')
    l_0_why = resolve('why')
    l_0_ttft_tail = resolve('ttft_tail')
    l_0_budget_words = resolve('budget_words')
    l_0_formula = l_0_figure = missing
    try:
        t_1 = environment.filters['device']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'device' found.")
    try:
        t_2 = environment.filters['dollars']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'dollars' found.")
    try:
        t_3 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_4 = environment.filters['gb']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'gb' found.")
    try:
        t_5 = environment.filters['gib']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'gib' found.")
    try:
        t_6 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_7 = environment.filters['kib']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'kib' found.")
    try:
        t_8 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_9 = environment.filters['nearest']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'nearest' found.")
    try:
        t_10 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_11 = environment.filters['params']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'params' found.")
    try:
        t_12 = environment.filters['share']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'share' found.")
    try:
        t_13 = environment.filters['sig3']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'sig3' found.")
    try:
        t_14 = environment.filters['time']
    except KeyError:
        @internalcode
        def t_14(*unused):
            raise TemplateRuntimeError("No filter named 'time' found.")
    try:
        t_15 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_15(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_16 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_16(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s9_serving.html.j2').make_module(context.get_all(), True, {'budget_words': l_0_budget_words, 'figure': l_0_figure, 'formula': l_0_formula, 'fr': l_0_fr, 'goodput_clause': l_0_goodput_clause, 'n': l_0_n, 'pools_row': l_0_pools_row, 'ra': l_0_ra, 'spec_row': l_0_spec_row, 'spx': l_0_spx, 'ttft_tail': l_0_ttft_tail, 'whole_prompt': l_0_whole_prompt, 'why': l_0_why})
    l_0_formula = getattr(included_template, 'formula', missing)
    if l_0_formula is missing:
        l_0_formula = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s9_serving.html.j2') does not export the requested name 'formula'", name='formula')
    l_0_figure = getattr(included_template, 'figure', missing)
    if l_0_figure is missing:
        l_0_figure = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'sections/s9_serving.html.j2') does not export the requested name 'figure'", name='figure')
    context.vars.update({'formula': l_0_formula, 'figure': l_0_figure})
    context.exported_vars.difference_update(('formula', 'figure'))
    if (undefined(name='serving') if l_0_serving is missing else l_0_serving):
        pass
        l_0_n = (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers') if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques') else {})
        context.vars['n'] = l_0_n
        context.exported_vars.add('n')
        yield '<section id="s9"'
        if (not (undefined(name='par') if l_0_par is missing else l_0_par)):
            pass
            yield ' data-static'
        yield '>\n<h2>'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's9'))
        yield '. Serving: one request, its targets, its cost</h2>\n<p data-static>The spec asks for requests of <strong>'
        yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt')))
        yield ' prompt token'
        if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt') != 1):
            pass
            yield 's'
        yield '</strong> and <strong>'
        yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'output')))
        yield '\ngenerated</strong>'
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users'):
            pass
            yield ', '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users')))
            yield ' at a time'
        if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target') or environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target')):
            pass
            yield ', under\n'
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target'):
                pass
                yield 'a time to first token of '
                yield escape(t_14(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target')))
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target') and environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target')):
                pass
                yield ' and '
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target'):
                pass
                yield 'a time per output token of '
                yield escape(t_14(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target')))
        yield ',\non '
        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'where'))
        yield '. The time to first token (TTFT) is the prefill of one prompt alone on the replica'
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit'):
            pass
            yield ', of\nthe '
            yield escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'uncached_share')))
            yield ' of it the prefix cache leaves (attending to the cached '
            yield escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit')))
            yield '; the weights still read once)'
        yield ', its\ncommunication included'
        if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'stages') > 1):
            pass
            yield ' (over '
            yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'stages'))
            yield " pipeline stages, at least the prompt's chunks in flight on every stage at once: the "
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt')))
            yield "-token prompt's"
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit'):
                pass
                yield " uncached part's"
            yield ' pass through the stages in turn, which keeps the replica busy and is its time to first token where an engine passes a prompt whole, as vLLM and TensorRT-LLM do, takes '
            yield escape(t_14(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'bound'), 'prefill')))
            yield ')'
        yield "; the time per output token (TPOT) is the request's slowest decode round, "
        if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'round_context') != environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'last_context')):
            pass
            yield 'at context\n'
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'round_context')))
            yield ', the end of the last chunk its rounds fill (its chunked layers read a whole chunk there, more than at its last\ncontext, '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'last_context')))
            yield ' tokens)'
        else:
            pass
            yield 'at its last context\n('
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'last_context')))
            yield ' tokens)'
        yield '; '
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds'):
            pass
            yield 'the end-to-end latency is TTFT plus the '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds')))
            yield ' decode round'
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds') != 1):
                pass
                yield 's'
            yield ' after the first\ntoken, summed in closed form: every ledger of a round is affine in the context, so the rounds cost as many rounds at the\nmean context '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt')))
            yield ' + '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'output')))
            yield "/2, and the bound takes the largest of the ledgers' sums, never more than the sum of the rounds. A user's tok/s is its output over those rounds, one over the mean round, above one over the TPOT (the slowest round, which the figure of tok/s per "
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' against tok/s per user takes).'
        else:
            pass
            yield "a one-token request has no decode round after its first token, so its end-to-end latency is its TTFT, and\nthe table's TPOT and per-user rate are those of one decode step at its last context (as <code>plan --context</code> takes them)."
        yield '\nCosts take '
        yield escape((markup_join((t_3('$%.2f', environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'price_per_hour')), ' per ', (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU), '-hour', )) if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'price_per_hour') else markup_join(('no price (the ', (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU), ' file has none: set serving.price)', ))))
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'board_watts'):
            pass
            yield ' and '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'board_watts')))
            yield ' W of board power per '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' (an upper estimate of the draw)'
        yield ';\ninput tokens are priced at the prefill rate, output tokens at the decode rate.'
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds'):
            pass
            yield " A row's TPOT, tok/s and $/M out are its\ndecode rounds alone: the prompts that keep a batch of that size running take their own share of the replica beside them (the compute\nroof's row counts them for its batch, not for its times; the goodput below is the rate that carries both)."
        if t_15(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'speedup_last')):
            pass
            yield " The rows decode plainly, one token a round: this\nspec's speculative decoding is the lever row of “What serving engines do to it” below, at the last row's batch (as <code>plan</code> with this spec\nspeculates where it pays)."
        yield '</p>\n'
        if (not environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'holds')):
            pass
            yield '<p data-static>This layout cannot serve the request: '
            if (environment.getattr((undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts), 'weights_fit') == False):
                pass
                yield 'its weights alone,\n'
                yield escape(t_4(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'weight_bytes')))
                if (undefined(name='par') if l_0_par is missing else l_0_par):
                    pass
                    yield ' per '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield ', exceed the '
                yield escape(t_5(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'capacity')))
                yield ' '
                if (undefined(name='par') if l_0_par is missing else l_0_par):
                    pass
                    yield 'each '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                else:
                    pass
                    yield escape(t_1('the card', (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)))
                yield ' holds'
            else:
                pass
                yield 'no sequence of\n'
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'last_context')))
                yield ' tokens fits beside its weights'
            yield ', so it has no time to first token, time per output token or cost to state.\n'
        else:
            pass
            yield '<div class="scroll"><table>\n<thead><tr><th>point</th><th class="n">batch per replica</th><th class="n">TTFT</th><th class="n">TPOT</th><th class="n">end to end</th><th class="n">tok/s per user</th><th class="n">tok/s per '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield '</th><th class="n">$/M in</th><th class="n">$/M out</th><th class="n">J/token</th></tr></thead>\n<tbody data-live="sv_rows">'
            for l_1_row in environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'):
                _loop_vars = {}
                pass
                for l_2_est in ('bound', 'serial'):
                    l_2_x = missing
                    _loop_vars = {}
                    pass
                    l_2_x = environment.getitem(l_1_row, l_2_est)
                    _loop_vars['x'] = l_2_x
                    yield '<tr><td>'
                    if (l_2_est == 'bound'):
                        pass
                        yield escape(environment.getattr(l_1_row, 'label'))
                        yield ', bound'
                    else:
                        pass
                        yield '&nbsp;&nbsp;serial estimate'
                    yield '</td>\n<td class="n">'
                    yield escape(t_6(environment.getattr(l_1_row, 'batch')))
                    yield '</td><td class="n">'
                    yield escape(t_14(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'ttft')))
                    yield '</td><td class="n">'
                    yield escape(t_14(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'tpot')))
                    yield '</td><td class="n">'
                    yield escape(t_14(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'e2e')))
                    yield '</td>\n<td class="n">'
                    yield escape(t_10(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'tokens_per_s_user')))
                    yield '</td><td class="n">'
                    yield escape(t_10(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'tokens_per_s_gpu')))
                    yield '</td>\n<td class="n">'
                    if (not t_16(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'usd_per_mtok_in'))):
                        pass
                        yield escape(t_13(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'usd_per_mtok_in')))
                    else:
                        pass
                        yield '—'
                    yield '</td>\n<td class="n">'
                    if (not t_16(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'usd_per_mtok_out'))):
                        pass
                        yield escape(t_13(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'usd_per_mtok_out')))
                    else:
                        pass
                        yield '—'
                    yield '</td>\n<td class="n">'
                    if (not t_16(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'joules_per_token'))):
                        pass
                        yield escape(t_13(environment.getattr((undefined(name='x') if l_2_x is missing else l_2_x), 'joules_per_token')))
                    else:
                        pass
                        yield '—'
                    yield '</td></tr>\n'
                l_2_est = l_2_x = missing
            l_1_row = missing
            yield '</tbody>\n</table></div>\n<p data-static>'
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node'):
                pass
                if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_nodes') > environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_nodes')):
                    pass
                    yield 'The expert-parallel group spans '
                    yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_nodes'))
                    yield ' nodes of '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield "s, its replicas' MoE layers running across all of them; each node's share gives"
                elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_nodes') > 1):
                    pass
                    yield 'A replica spans '
                    yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_nodes'))
                    yield ' nodes of '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield "s; each node's share"
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus') % environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')):
                        pass
                        yield ' (its '
                        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus'))
                        yield ' '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield 's over '
                        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_nodes'))
                        yield ' nodes: '
                        yield escape(t_10(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'node_busy_gpus')))
                        yield ' a node)'
                    yield ' gives'
                elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus') == environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')):
                    pass
                    yield 'A node of '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's, one replica, gives'
                else:
                    pass
                    yield 'A node of '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's full of such replicas ('
                    yield escape((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node') // environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')))
                    yield ' replica'
                    if ((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node') // environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')) != 1):
                        pass
                        yield 's'
                    yield ' of '
                    yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus'))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus') != 1):
                        pass
                        yield 's'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node') % environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')):
                        pass
                        yield ', '
                        yield escape((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node') % environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')))
                        yield ' '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        if ((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_per_node') % environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')) != 1):
                            pass
                            yield 's'
                        yield ' idle'
                    yield ') gives'
                yield ' at most '
                yield escape(t_10(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), -1), 'bound'), 'tokens_per_s_node')))
                yield " output tok/s at the last row's batch by the strict bound (its bound row's tok/s per "
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield " times the node's "
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield "s that run it). The serial estimate's row gives "
                yield escape(t_10(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), -1), 'serial'), 'tokens_per_s_node')))
                yield '. '
            yield 'A replica holds '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'capacity_batch')))
            yield ' sequence'
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'capacity_batch') != 1):
                pass
                yield 's'
            yield ' of '
            yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'last_context')))
            yield ' tokens'
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp') > 1):
                pass
                yield ' ('
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'concurrency')))
                yield ' over the '
                yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp'))
                yield ' replicas)'
            if (t_15(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'capacity_with_draft')) and (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'capacity_plain') != environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'capacity_with_draft'))):
                pass
                yield " beside the draft's weights and cache, "
                yield escape(t_6(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'capacity_plain')))
                yield ' without it'
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'max_sequences'):
                pass
                yield ', but its engine runs at most '
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'max_sequences')))
                yield " at once (engine.max_sequences, vLLM's max_num_seqs, whose logits the activation workspace holds): no row's batch passes it"
            yield '.\n'
            t_17 = []
            pass
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit') and t_15(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'prefix_ttft_before'))):
                pass
                t_17.extend((
                    ' for the ',
                    escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'uncached_share'))),
                    " of a prompt the prefix cache leaves (the rows' TTFT; a whole prompt takes ",
                    escape(t_14(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'prefix_ttft_before'))),
                    ', the prefix caching row below)',
                ))
            l_0_whole_prompt = (Markup if context.eval_ctx.autoescape else identity)(concat(t_17))
            context.vars['whole_prompt'] = l_0_whole_prompt
            context.exported_vars.add('whole_prompt')
            if (not t_16(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_met'))):
                pass
                yield 'The TTFT target is '
                if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_met'):
                    pass
                    yield 'met: at least '
                    yield escape(t_14(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'bound'), 'ttft')))
                    yield ' at this layout'
                    yield escape((undefined(name='whole_prompt') if l_0_whole_prompt is missing else l_0_whole_prompt))
                    if (environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'serial'), 'ttft') > environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target')):
                        pass
                        yield ', while the serial estimate, '
                        yield escape(t_14(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'serial'), 'ttft')))
                        yield ', misses it'
                else:
                    pass
                    yield '<strong>missed</strong>: the prefill alone takes at least '
                    yield escape(t_14(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'bound'), 'ttft')))
                    yield ' at this layout'
                    yield escape((undefined(name='whole_prompt') if l_0_whole_prompt is missing else l_0_whole_prompt))
                yield '. '
            if (not t_16(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch'))):
                pass
                if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch'):
                    pass
                    yield 'The TPOT target allows '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch')))
                    yield ' sequence'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch') != 1):
                        pass
                        yield 's'
                    yield ' per replica'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch') == environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'capacity_batch')):
                        pass
                        yield ' (all that fit: capacity stops the batch first)'
                    elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'max_sequences') and (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch') == environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'max_sequences'))):
                        pass
                        yield " (the engine's max_sequences stops the batch first)"
                    elif ((not t_16(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'compute_batch'))) and (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_batch') == environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'compute_batch'))):
                        pass
                        yield " (the compute stops the batch first, the sequences' prompts counted)"
                    yield '.'
                    if (not t_16(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'compute_batch'))):
                        pass
                        yield " With their prompts' prefills a replica's compute keeps at most B<sub>P,θ</sub> = n<sub>TP</sub> n<sub>st</sub> P (T<sub>out</sub> − 1) θ / F<sub>r</sub> = "
                        yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'compute_batch')))
                        yield " sequences at the target (F<sub>r</sub> a request's FLOPs: its decode tokens at the mean context and its prompt"
                        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit'):
                            pass
                            yield "'s "
                            yield escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'uncached_share')))
                            yield ' the prefix cache leaves, which attends to the cached part too'
                        yield '; the decode round alone leaves them out).'
                elif ((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'compute_batch') == 0) and environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'decode_tpot_batch')):
                    pass
                    yield 'The TPOT target is <strong>missed</strong> once the prompts are counted: a decode round alone meets it up to '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'decode_tpot_batch')))
                    yield ' sequence'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'decode_tpot_batch') != 1):
                        pass
                        yield 's'
                    yield ' per replica ('
                    yield escape(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'label'))
                    yield ': TPOT '
                    yield escape(t_14(environment.getattr(environment.getattr(environment.getitem(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rows'), 0), 'bound'), 'tpot')))
                    yield "), but with their prompts' prefills a replica's compute keeps none at the target: B<sub>P,θ</sub> = n<sub>TP</sub> n<sub>st</sub> P (T<sub>out</sub> − 1) θ / F<sub>r</sub> = 0 (F<sub>r</sub> a request's FLOPs: its decode tokens at the mean context and its prompt"
                    if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit'):
                        pass
                        yield "'s "
                        yield escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'uncached_share')))
                        yield ' the prefix cache leaves'
                    yield '; its '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt')))
                    yield "-token prompt takes more of the replica's compute than its "
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds')))
                    yield ' decode round'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds') != 1):
                        pass
                        yield 's'
                    yield ' of θ give'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'rounds') == 1):
                        pass
                        yield 's'
                    yield ' it).'
                else:
                    pass
                    yield 'The TPOT target is <strong>missed</strong> even by '
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas') > 1):
                        pass
                        yield 'one request a replica'
                    else:
                        pass
                        yield 'one request alone'
                    yield '.'
                yield ' '
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_for_users'):
                pass
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users')))
                yield ' '
                if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users') == 1):
                    pass
                    yield 'user takes'
                else:
                    pass
                    yield 'users take'
                yield ' '
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_for_users')))
                yield ' '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'gpus_for_users') != 1):
                    pass
                    yield 's'
                if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp') > 1):
                    pass
                    yield ' ('
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replicas_for_users')))
                    yield ' replica'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replicas_for_users') != 1):
                        pass
                        yield 's'
                    yield ' of '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus') != 1):
                        pass
                        yield 's'
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas') > 1):
                        pass
                        yield ': whole expert-parallel groups of '
                        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas'))
                        yield ' replicas, each replica holding 1/'
                        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas'))
                        yield ' of the routed experts'
                    yield ')'
                yield ' of this layout'
                if ((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users_batch') and (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users_batch') > 1)) and (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replicas_for_users') < environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp'))):
                    pass
                    yield "; the users' row spreads them over its "
                    yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp'))
                    yield ' replicas, '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users_batch')))
                    yield ' on the busiest'
                yield '. '
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'):
            pass
            yield 'Of every layout and format <code>plan</code> tries on '
            yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
            yield ' (weights '
            l_1_loop = missing
            for l_1_f, l_1_loop in LoopContext(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'formats'), undefined):
                _loop_vars = {}
                pass
                if (',' in l_1_f):
                    pass
                    yield '('
                    yield escape(l_1_f)
                    yield ')'
                else:
                    pass
                    yield escape(l_1_f)
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield ' and '
            l_1_loop = l_1_f = missing
            yield "; int8/int4 change accuracy and are tried only when named; <code>genreport plan</code> with this report's spec lists them all, this one first), the "
            yield escape(('cheapest per request (its prompt and its output)' if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'price_per_hour') else markup_join(('fastest per ', (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU), ))))
            yield ' that meets the targets at the strict bound '
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users'):
                pass
                yield "serving the spec's "
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users')))
                yield ' user'
                if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users') != 1):
                    pass
                    yield 's'
            elif environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_batch_engine'):
                pass
                yield 'with at most '
                yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_batch')))
                yield ' sequences a replica'
            else:
                pass
                yield 'with as many sequences a replica as fit (no engine limit)'
            yield ' is\n<strong>'
            yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus'))
            yield ' '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield escape(('s' if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus') > 1) else ''))
            yield ', '
            yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'layout'))
            yield ', '
            yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'precision'))
            yield ' weights'
            if environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'weight_only'):
                pass
                yield ' computed in bf16 (weight-only, W8A16: the '
                yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
                yield ' has no fp8 peak)'
            yield ', '
            yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'kv_cache'))
            yield ' KV cache</strong>'
            if ('tp' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'scale_out_groups')):
                pass
                yield ' (its tensor-parallel group across nodes: its all-reduces cross the scale-out network)'
            yield ':\n'
            if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users'):
                pass
                yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'batch')))
                yield ' sequence'
                yield escape(('s' if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'batch') != 1) else ''))
                yield ' on '
                yield escape(('each replica' if ((environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'dp') > 1) or (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus_for_users') > environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus'))) else 'its replica'))
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus_for_users') and (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus_for_users') > environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus'))):
                    pass
                    yield ' (the '
                    yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users')))
                    yield ' '
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'users') == 1):
                        pass
                        yield 'user takes'
                    else:
                        pass
                        yield 'users take'
                    yield ' '
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'gpus_for_users')))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's, more than one copy of this layout)'
                yield ', '
            yield 'TTFT '
            yield escape(t_14(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'ttft')))
            yield ', TPOT '
            yield escape(t_14(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'tpot')))
            yield ', '
            yield escape(t_10(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'tokens_per_s_gpu')))
            yield ' tok/s per '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            if (not t_16(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'usd_per_mtok_out'))):
                pass
                yield ', $'
                yield escape(t_2(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'usd_per_mtok_out')))
                yield ' per million output tokens'
            if (not t_16(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'usd_per_request'))):
                pass
                yield ', $'
                yield escape(t_2(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'usd_per_request')))
                yield ' per request'
            if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'precision') in ('int8', 'int4')):
                pass
                yield ' (the bound charges '
                yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'precision'))
                yield ' weights no dequantization)'
            yield '.'
            l_0_spx = context.call(environment.getattr((environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'frontier') or {}), 'get'), 'speculative')
            context.vars['spx'] = l_0_spx
            context.exported_vars.add('spx')
            if (undefined(name='spx') if l_0_spx is missing else l_0_spx):
                pass
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'speculative') == 'on'):
                    pass
                    yield " It speculates (<code>plan --speculative</code> with this spec's "
                    yield escape(environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft_tokens'))
                    yield ' draft token'
                    yield escape(('s' if (environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft_tokens') > 1) else ''))
                    yield ', each accepted '
                    yield escape(t_12(environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'acceptance')))
                    if environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft'):
                        pass
                        yield ', drafted by '
                        yield escape(environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft'))
                    yield '): its round yields '
                    yield escape(t_3('%.2f', environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'spec_speedup')))
                    yield '× the tokens per second of a plain one at batch '
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'batch')))
                    yield ', TPOT '
                    yield escape(t_14(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'cheapest'), 'tpot_plain')))
                    yield ' without.'
                else:
                    pass
                    yield " It does not speculate: with this spec's speculative decoding ("
                    yield escape(environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft_tokens'))
                    yield ' draft token'
                    yield escape(('s' if (environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'draft_tokens') > 1) else ''))
                    yield ', each accepted '
                    yield escape(t_12(environment.getattr((undefined(name='spx') if l_0_spx is missing else l_0_spx), 'acceptance')))
                    yield ') no layout <code>plan --speculative</code> finds is cheaper.'
        elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ttft_target') or environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target')):
            pass
            yield 'No layout <code>plan</code> tries on '
            yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'title'))
            yield ' meets the targets.'
        yield '</p>\n'
        l_0_fr = environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'frontier')
        context.vars['fr'] = l_0_fr
        context.exported_vars.add('fr')
        if ((undefined(name='fr') if l_0_fr is missing else l_0_fr) and environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'layouts')):
            pass
            yield '<p data-static>Figure '
            yield escape(context.call(environment.getattr((undefined(name='eq') if l_0_eq is missing else l_0_eq), 'figure'), 'fig10-frontier'))
            yield ' sets this layout among the '
            yield escape(t_8(environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'layouts')))
            yield ' that <code>plan</code> tries at '
            yield escape(environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'precision'))
            yield ", under the\nserial estimate; this report's "
            yield escape(t_1(environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'titled'), (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)))
            yield ' '
            if (not environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'titled_holds')):
                pass
                yield 'holds no such sequence'
            elif environment.getattr((undefined(name='fr') if l_0_fr is missing else l_0_fr), 'titled_on_frontier'):
                pass
                yield 'reaches the frontier'
            else:
                pass
                yield 'is <strong>not</strong> on the frontier at any batch'
            yield '. '
            yield escape((undefined(name='frontier_text') if l_0_frontier_text is missing else l_0_frontier_text))
            yield '</p>\n'
            yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig10-frontier'))
            yield '\n\n'
        if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'):
            pass
            yield '<h3>What serving engines do to it</h3>\n<p data-frame>Each technique changes how many tokens one pass over the weights serves, so each moves the step on the roofline,\nat a batch of <span data-sv="batch" data-f="integer">'
            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'batch')))
            yield '</span> per replica'
            if environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'context'):
                pass
                yield ', context <span data-sv="context" data-f="integer">'
                yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'context')))
                yield "</span> (a request's last token)"
            if ('speedup_last' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers')):
                pass
                yield '; speculative decoding\'s TPOT is the TPOT above over its speed-up at that last token (<span data-sv="numbers.speedup_last" data-f="f2">'
                yield escape(t_3('%.2f', environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'speedup_last')))
                yield '</span>×), its tok/s and $/M the ones above with its speed-up at a request\'s mean context, <span data-sv="mean_context" data-f="integer">'
                yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'mean_context')))
                yield '</span> (<span data-sv="numbers.speedup_mean" data-f="f2">'
                yield escape(t_3('%.2f', environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'speedup_mean')))
                yield '</span>×: the decode rounds summed), as <code>plan --speculative</code> and the frontier take them'
            yield '. '
            (l_0_spec_row, l_0_pools_row) = (('speedup_last' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers')), ('prefill_share' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers')))
            context.vars.update({'pools_row': l_0_pools_row, 'spec_row': l_0_spec_row})
            context.exported_vars.update(('pools_row', 'spec_row'))
            if ((undefined(name='spec_row') if l_0_spec_row is missing else l_0_spec_row) or (undefined(name='pools_row') if l_0_pools_row is missing else l_0_pools_row)):
                pass
                if ((undefined(name='spec_row') if l_0_spec_row is missing else l_0_spec_row) and (undefined(name='pools_row') if l_0_pools_row is missing else l_0_pools_row)):
                    pass
                    yield 'Speculative decoding and the KV transfer are'
                elif (undefined(name='spec_row') if l_0_spec_row is missing else l_0_spec_row):
                    pass
                    yield 'Speculative decoding is'
                else:
                    pass
                    yield 'The KV transfer is'
                yield ' evaluated through the layout (its collectives and pipeline included); chunked prefill takes'
            else:
                pass
                yield ' Chunked prefill takes'
            yield ' one '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s ledgers at the layout\n(its slice of the model)"
            if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
                pass
                yield " or, where they take longer, the mixed step's collectives over the links"
            yield ', continuous\nbatching'
            if ('prefix_capacity_after' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers')):
                pass
                yield ' and prefix caching'
            yield ' one '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s ledgers alone (no interconnect), and their ratios are applied to\nthe bound above; their rates and sequence counts are one replica's"
            if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus') > 1):
                pass
                yield ' (its <span data-sv="numbers.replica_gpus" data-f="integer">'
                yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'replica_gpus'))
                yield '</span> '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's each carry their slice of every request)'
            yield '. A chunked-prefill step takes at most <span data-sv="chunk" data-f="tokens">'
            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk')))
            yield ' token'
            if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk') != 1):
                pass
                yield 's'
            yield "</span>, the running sequences' decode tokens first and a prompt chunk in what they leave ("
            yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_source'))
            yield ').'
            if context.call(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'get'), 'prefill_only'):
                pass
                yield ' <span data-static>A one-token request has no decode round, so '
                if environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rows'):
                    pass
                    yield 'only a prefix cache acts on it'
                else:
                    pass
                    yield 'no technique of the table acts on it'
                yield ': no decode token rides beside a prompt chunk, no token is drafted and no decode pool takes its cache; the step budget only caps the prompt tokens a step carries (the chunk budget below).</span>'
            yield '</p>\n<div class="scroll"'
            if (not environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rows')):
                pass
                yield ' hidden'
            yield '><table>\n<thead><tr><th>technique</th><th>setting</th><th class="n">TTFT</th><th class="n">TPOT</th><th class="n">tok/s per '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield '</th><th class="n">$/M out</th></tr></thead>\n<tbody data-live="sv_levers">'
            for l_1_row in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rows'):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(environment.getattr(l_1_row, 'technique'))
                yield '</td><td>'
                yield escape(environment.getattr(l_1_row, 'setting'))
                yield '</td>\n<td class="n">'
                yield escape(t_14(environment.getitem(environment.getattr(l_1_row, 'ttft'), 0)))
                yield ' → '
                yield escape(t_14(environment.getitem(environment.getattr(l_1_row, 'ttft'), 1)))
                yield '</td><td class="n">'
                yield escape(t_14(environment.getitem(environment.getattr(l_1_row, 'tpot'), 0)))
                yield ' → '
                yield escape(t_14(environment.getitem(environment.getattr(l_1_row, 'tpot'), 1)))
                yield '</td>\n<td class="n">'
                yield escape(t_10(environment.getitem(environment.getattr(l_1_row, 'per_gpu'), 0)))
                yield ' → '
                yield escape(t_10(environment.getitem(environment.getattr(l_1_row, 'per_gpu'), 1)))
                yield '</td>\n<td class="n">'
                if (not t_16(environment.getitem(environment.getattr(l_1_row, 'usd'), 0))):
                    pass
                    yield escape(t_13(environment.getitem(environment.getattr(l_1_row, 'usd'), 0)))
                    yield ' → '
                    if (not t_16(environment.getitem(environment.getattr(l_1_row, 'usd'), 1))):
                        pass
                        yield escape(t_13(environment.getitem(environment.getattr(l_1_row, 'usd'), 1)))
                    else:
                        pass
                        yield '—'
                else:
                    pass
                    yield '—'
                yield '</td></tr>\n'
            l_1_row = missing
            yield '</tbody>\n</table></div>\n<ul data-live="sv_ends"'
            if (not environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rows')):
                pass
                yield ' hidden'
            yield '>'
            for l_1_row in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rows'):
                _loop_vars = {}
                pass
                yield '<li><strong>'
                yield escape(environment.getattr(l_1_row, 'technique'))
                yield '</strong> ('
                yield escape(environment.getattr(l_1_row, 'note'))
                yield '): '
                yield escape(environment.getattr(l_1_row, 'ends'))
                yield '.</li>\n'
            l_1_row = missing
            yield '</ul>\n'
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_speculative')):
                pass
                yield '<p data-shape="decode">Speculative decoding: a verify step reads the weights and each sequence\'s cache once for its\nk<sub>d</sub> + 1 tokens and yields E = (1 − p<sub>a</sub><sup>k<sub>d</sub>+1</sup>) / (1 − p<sub>a</sub>) tokens on average\n(Leviathan et al.), at most the T<sub>out</sub> − 1 a request makes after its first: E<sub>R</sub> = min(E, T<sub>out</sub> − 1) = <span data-sv="numbers.expected_tokens" data-f="f2">'
                yield escape(t_3('%.2f', environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'expected_tokens')))
                yield '</span> tokens. At the layout the verify round carries k<sub>d</sub> + 1 tokens of each sequence through the weights and\nthe collectives and reads each cache once (t<sub>v</sub>, <code>verify_time_bound</code>), against the plain round t<sub>s</sub>\n(<code>decode_time_bound</code>) and the drafts t<sub>d</sub>, at the last token (the speed-up that divides the TPOT) and at the mean context (the one the tok/s take):</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_speculative'), False))
                yield '</div>\n'
                if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_speculative_mean')):
                    pass
                    yield '<div class="static-fx" data-static>'
                    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_speculative_mean'), False))
                    yield '</div>'
                yield '<p data-shape="decode">t<sub>s</sub> and t<sub>v</sub> are both lower bounds, so this speed-up is the roofline\'s, not a ceiling on a measured one: an engine\nwhose steps carry fixed costs the verify step\'s extra tokens do not grow (the collectives\' latency, the kernels) gains more at a small\nbatch'
                if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'):
                    pass
                    yield ', where the roofline charges the experts the verify tokens touch in full'
                yield ", up to E itself. What no\nengine beats is the speculative TPOT's bound, t<sub>v</sub> / E.</p>"
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_draft')):
                pass
                yield '<p data-static>The drafts: '
                yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'draft_model'))
                yield " proposes the k<sub>d</sub> tokens one\nafter another, each pass at least its own roofline step over the replica's "
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's (its FLOPs F<sub>d</sub> over their peak, its weights\nand each sequence\'s draft cache Q<sub>d</sub> over their bandwidth; <code>draft_time_bound</code>, a lower bound however the engine\nsplits the draft):</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_draft'), False))
                yield '</div>'
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_chunked')):
                pass
                yield '<p data-frame data-shape="decode">Chunked prefill: a '
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                    pass
                    yield 'round'
                else:
                    pass
                    yield 'step'
                yield ' with B decode tokens and a chunk of C<sub>p</sub> = min(max('
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                    pass
                    yield 'n<sub>st</sub> '
                yield "s<sub>c</sub> − B, 0), T<sub>in</sub> (1 − h<sub>p</sub>)) prompt tokens (what the step's budget s<sub>c</sub> leaves beside the decode tokens"
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                    pass
                    yield ", over the round's n<sub>st</sub> = "
                    yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps'))
                    yield ' steps, one per micro-batch in flight'
                yield ', or the whole uncached prompt where that holds it; here <span data-sv="numbers.chunk_tokens" data-f="nearest">'
                yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'chunk_tokens')))
                yield '</span>) reads the weights once'
                if ((environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_form') == 'mla') and (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_chunk') != environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_decode'))):
                    pass
                    yield "; <span data-static>each part attends in its own form, the decode tokens in MLA's absorbed form (d<sub>h</sub> = "
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_decode')))
                    yield ': the latent and its rotary part, as a decode step reads them) and the prompt chunk in the decompressed form a prefill runs (d<sub>h,p</sub> = '
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_chunk')))
                    yield ": the query-key and value heads), as the engines' MLA backends split a mixed step into its decode and prefill parts</span>"
                elif ((environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_form') == 'bounded') and (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_chunk') != environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_decode'))):
                    pass
                    yield "; <span data-static>each part attends what its layers' windows let it, the decode tokens the share of the cached positions a token at the last context reads (d<sub>h</sub> = "
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_decode')))
                    yield ": the head dimension times that share) and the prompt chunk the share of the uncached prompt's causal attention its layers compute (d<sub>h,p</sub> = "
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'head_dim_chunk')))
                    yield '), as a prefill of that prompt counts it</span>'
                yield ':</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_chunked'), False))
                yield '</div>\n'
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_chunked_life')):
                pass
                yield "<p data-static>Over a batch's life its B prompts' uncached tokens ride along n<sub>c</sub> = B T<sub>in</sub> (1 − h<sub>p</sub>) / C<sub>p</sub> of its\nT<sub>out</sub> − 1 decode rounds, each a mixed step of κ<sub>c</sub> plain rounds (the row's cost, t<sub>mix</sub> over a plain round); the row's\ntok/s per "
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield ' and $/M take the mean round, its TPOT the mixed step a token waits on:</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_chunked_life'), False))
                yield '</div>'
            l_1_past = resolve('past')
            t_18 = []
            pass
            t_18.append(
                '<span data-live="sv_goodput">The goodput of one replica',
            )
            if (environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'replica_gpus') > 1):
                pass
                t_18.extend((
                    ' (',
                    escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'replica_gpus')),
                    ' ',
                    escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)),
                    's, each computing its slice of every request)',
                ))
            elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp') > 1):
                pass
                t_18.extend((
                    ' (one ',
                    escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)),
                    ', one of ',
                    escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'dp')),
                    ' replicas)',
                ))
            t_18.extend((
                ', in the steady state of one ',
                escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)),
                "'s ledgers (no collectives), is the least of the ",
                escape(('two' if context.call(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'get'), 'prefill_only') else ('five' if ('goodput_rate_engine' in (undefined(name='n') if l_0_n is missing else l_0_n)) else 'four'))),
                ': ',
            ))
            if environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'):
                pass
                t_18.extend((
                    '<strong>',
                    escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'))),
                    ' requests/s</strong>',
                ))
                if (environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'replica_gpus') > 1):
                    pass
                    t_18.extend((
                        ', ',
                        escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate_per_gpu'))),
                        ' per ',
                        escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU)),
                    ))
                t_18.extend((
                    ', set by the ',
                    escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_binds')),
                ))
            elif (environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_binds') == 'TPOT target'):
                pass
                t_18.append(
                    "none: the target is below the weights' stream time",
                )
            else:
                pass
                t_18.extend((
                    'none: the ',
                    escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_binds')),
                    ' allows no rate',
                ))
            t_18.append(
                '.',
            )
            if ('rate' in environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers')):
                pass
                t_19 = []
                pass
                if ((not t_16(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'))) and (environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'rate') > environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'))):
                    pass
                    t_19.append(
                        ', past the ',
                    )
                    if (t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate')) == t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'rate'))):
                        pass
                        t_19.append(
                            escape(t_3('%.6g', environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'))),
                        )
                    else:
                        pass
                        t_19.append(
                            escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_rate'))),
                        )
                    t_19.extend((
                        ' requests/s the ',
                        escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'goodput_binds')),
                        ' allows: no engine holds that steady state',
                    ))
                l_1_past = (Markup if context.eval_ctx.autoescape else identity)(concat(t_19))
                t_18.extend((
                    " At the spec's ",
                    escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'rate'))),
                    ' requests/s ',
                ))
                if context.call(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'get'), 'prefill_only'):
                    pass
                    t_18.extend((
                        'its prompts take ',
                        escape(t_12(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'rate_compute_share'))),
                        ' of its compute (λ F<sub>r</sub> / P)',
                        escape((undefined(name='past') if l_1_past is missing else l_1_past)),
                    ))
                else:
                    pass
                    t_18.append(
                        'a step takes ',
                    )
                    if environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'steady_step_time'):
                        pass
                        t_18.extend((
                            escape(t_14(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'steady_step_time'))),
                            ' with ',
                            escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'numbers'), 'steady_concurrency'))),
                            ' sequences decoding',
                            escape((undefined(name='past') if l_1_past is missing else l_1_past)),
                        ))
                    else:
                        pass
                        t_18.append(
                            'no steady time: the rate is past what the memory allows',
                        )
                t_18.append(
                    '.',
                )
            t_18.append(
                '</span>',
            )
            l_0_goodput_clause = (Markup if context.eval_ctx.autoescape else identity)(concat(t_18))
            context.vars['goodput_clause'] = l_0_goodput_clause
            context.exported_vars.add('goodput_clause')
            l_1_past = missing
            if (t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_goodput')) and context.call(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'get'), 'prefill_only')):
                pass
                yield '<p data-shape="prefill">Continuous batching in steady state, for a request that leaves with its first token: requests arriving at λ per second keep\nλ (T<sub>out</sub> − 1) t<sub>s</sub> = 0 sequences decoding (Little\'s law), so neither a TPOT target, the KV cache room nor the engine\'s max_sequences sets a rate: the replica only prefills, and the highest rate its compute allows (λ F<sub>r</sub> = P, a request\'s\nFLOPs F<sub>r</sub> those of its prompt\'s prefill'
                if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prefix_hit'):
                    pass
                    yield ', the '
                    yield escape(t_12(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'uncached_share')))
                    yield ' the prefix cache leaves'
                yield ') is</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_goodput'), False))
                yield '</div>\n<p data-shape="prefill">Beside it stands the chunk budget (<span data-sv="numbers.chunk_budget_rate" data-f="rps" data-none="none">'
                if (not t_16(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'chunk_budget_rate'))):
                    pass
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'chunk_budget_rate')))
                    yield ' requests/s'
                else:
                    pass
                    yield 'none'
                yield '</span>: '
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                    pass
                    yield 'each round of t<sub>s</sub> (its '
                    yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps'))
                    yield " steps, one per micro-batch in flight) carries λ T<sub>in</sub> (1 − h<sub>p</sub>) t<sub>s</sub> prompt tokens, and past this rate they pass its steps' budgets, "
                    yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps'))
                    yield ' of <span data-sv="chunk" data-f="tokens">'
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk')))
                    yield ' token'
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk') != 1):
                        pass
                        yield 's'
                    yield '</span>'
                else:
                    pass
                    yield 'each step of t<sub>s</sub> carries λ T<sub>in</sub> (1 − h<sub>p</sub>) t<sub>s</sub> prompt tokens, and past this rate they pass the step\'s budget of <span data-sv="chunk" data-f="tokens">'
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk')))
                    yield ' token'
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk') != 1):
                        pass
                        yield 's'
                    yield '</span>'
                yield ', so the prompts queue without end).\n</p>'
            elif t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_goodput')):
                pass
                yield '<p data-shape="decode">Continuous batching in steady state: requests arriving at λ per second keep\nλ (T<sub>out</sub> − 1) t<sub>s</sub> sequences decoding (Little\'s law), so the memory ledger of a step grows with its own length; the\nhighest rate whose step meets the TPOT target is</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_goodput'), False))
                yield '</div>\n<p data-shape="decode">'
                if environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'tpot_streamed'):
                    pass
                    yield '<span data-static>Here '
                    yield escape(environment.getitem(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'tpot_streamed'), 'split'), '_'), 0))
                    yield '<sub>'
                    yield escape(environment.getitem(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'tpot_streamed'), 'split'), '_'), 1))
                    yield '</sub> is the '
                    yield escape(t_11(environment.getattr(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'tpot_weights'), 'N')))
                    yield ' parameters one '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield ' streams in a step at that rate'
                    if ((environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') == 1) and environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe')):
                        pass
                        yield ' on average'
                    yield ': its λ θ (T<sub>out</sub> − 1) decode tokens and λ θ T<sub>in</sub> (1 − h<sub>p</sub>) prompt tokens '
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'tpot_streamed') == 'N_r,g'):
                        pass
                        yield "fill the round's micro-batches, each streaming the slice"
                    else:
                        pass
                        yield 'touch the experts that make it'
                        if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                            pass
                            yield ', in each micro-batch of the round'
                        elif environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'):
                            pass
                            yield ', the prompt tokens in whole budgets on a share of the steps (below)'
                    yield ', so the rate and the weights are found together, the steady state Figure '
                    yield escape(context.call(environment.getattr((undefined(name='eq') if l_0_eq is missing else l_0_eq), 'figure'), 'fig11-rates'))
                    yield ' runs, not the '
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'batch')))
                    yield " sequences of the chapter's batch.</span> "
                yield 'Beside it stand the compute roof (<span data-sv="numbers.goodput_rate_compute" data-f="rps" data-none="none">'
                if (not t_16(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_compute'))):
                    pass
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_compute')))
                    yield ' requests/s'
                else:
                    pass
                    yield 'none'
                yield '</span>), the KV cache room\n(<span data-sv="numbers.goodput_rate_capacity" data-f="rps" data-none="none">'
                if (not t_16(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_capacity'))):
                    pass
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_capacity')))
                    yield ' requests/s'
                else:
                    pass
                    yield 'none'
                yield '</span>: the rate the caches allow, where the running sequences, each at a request\'s mean context of <span data-sv="mean_context" data-f="integer">'
                yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'mean_context')))
                yield '</span> tokens'
                if ('prefix_capacity_after' in (undefined(name='n') if l_0_n is missing else l_0_n)):
                    pass
                    yield ' with the shared prefix held once'
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'kv_held_apart') and (t_7(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'kv_held_per_token')) != t_7(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'kv_read_per_token')))):
                    pass
                    yield ', each token\'s cache counted as a sequence holds it, c<sub>h</sub> = <span data-sv="kv_held_per_token" data-f="kib">'
                    yield escape(t_7(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'kv_held_per_token')))
                    yield '</span> per '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield ' (held, averaged over the request\'s contexts: a windowed layer holds its window, a chunked layer up to its chunk), not the c = <span data-sv="kv_read_per_token" data-f="kib">'
                    yield escape(t_7(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'kv_read_per_token')))
                    yield '</span> a step of the slowest round reads'
                yield ', fill the room beside the weights at the steady step of that rate'
                if context.call(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'get'), 'draft_model'):
                    pass
                    yield ", each beside its draft's cache and the draft's weights beside the target's"
                yield ')'
                yield escape((',' if ('goodput_rate_engine' in (undefined(name='n') if l_0_n is missing else l_0_n)) else ' and'))
                yield ' the chunk budget\n(<span data-sv="numbers.chunk_budget_rate" data-f="rps" data-none="none">'
                if (not t_16(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'chunk_budget_rate'))):
                    pass
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'chunk_budget_rate')))
                    yield ' requests/s'
                else:
                    pass
                    yield 'none'
                yield '</span>: past it '
                if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                    pass
                    yield "a round's "
                    yield escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps'))
                    yield ' steps of <span data-sv="chunk" data-f="tokens">'
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk')))
                    yield ' token'
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk') != 1):
                        pass
                        yield 's'
                    yield '</span> each (one per micro-batch in flight), its decode tokens and the prompt chunks together, fall'
                else:
                    pass
                    yield 'a step\'s budget of <span data-sv="chunk" data-f="tokens">'
                    yield escape(t_6(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk')))
                    yield ' token'
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk') != 1):
                        pass
                        yield 's'
                    yield '</span>, its decode tokens and the prompt chunks together, falls'
                yield ' behind the arrivals and the prompts queue without end)'
                if ('goodput_rate_engine' in (undefined(name='n') if l_0_n is missing else l_0_n)):
                    pass
                    yield ', and the engine\'s max_sequences\n(<span data-sv="numbers.goodput_rate_engine" data-f="rps" data-none="none">'
                    if (not t_16(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_engine'))):
                        pass
                        yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'goodput_rate_engine')))
                        yield ' requests/s'
                    else:
                        pass
                        yield 'none'
                    yield '</span>: the rate whose running sequences, λ (T<sub>out</sub> − 1) t<sub>s</sub>, are the <span data-sv="numbers.max_sequences" data-f="integer">'
                    yield escape(t_6(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'max_sequences')))
                    yield '</span> it runs at once; past it the arrivals wait, whatever room the caches leave)'
                yield '.\n</p>'
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_goodput')):
                pass
                yield '<p>'
                yield escape((undefined(name='goodput_clause') if l_0_goodput_clause is missing else l_0_goodput_clause))
                if (environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe') and (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1)):
                    pass
                    yield "<span data-static> For a mixture of experts over\npipeline stages this steady state spreads the prompts' tokens evenly over the rounds, each reading the experts they\ntouch: a round's weights follow its micro-batches, which grow with its tokens by no concave law, so here the step is an\nupper estimate, not a bound.</span>"
                elif environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'):
                    pass
                    yield "<span data-static> For a mixture of experts the prompts' tokens\nride in whole budgets: a share λ T<sub>in</sub> (1 − h<sub>p</sub>) t<sub>s</sub> / (s<sub>c</sub> − B) of the steps\ncarries a full budget of s<sub>c</sub> tokens, the others only their B decode tokens, each step reading the experts\nits own tokens touch (an engine may batch several prompts in one budget; the P99 below takes one prompt's chunk a\nstep). The experts a step reads grow more slowly than its\ntokens, so no engine's way of spreading the prompt tokens over its steps reads fewer on average, and the step stays a\nbound (spread evenly over every step, they would read more: an estimate, not a bound).</span>"
                yield '</p>'
            l_0_ra = environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'rates')
            context.vars['ra'] = l_0_ra
            context.exported_vars.add('ra')
            if (undefined(name='ra') if l_0_ra is missing else l_0_ra):
                pass
                l_0_why = {'compute': 'the compute roof', 'memory': 'the bandwidth', 'prefills': 'the prefills back to back', 'chunk budget': 'the chunk budget', 'capacity': 'the KV cache room', 'engine': "the engine's max_sequences", 'TPOT target': 'the TPOT target', 'TTFT target': 'the TTFT target'}
                context.vars['why'] = l_0_why
                context.exported_vars.add('why')
                yield '<p data-static>Figure '
                yield escape(context.call(environment.getattr((undefined(name='eq') if l_0_eq is missing else l_0_eq), 'figure'), 'fig11-rates'))
                yield ' follows the arrival rate at one replica, from one '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield "'s ledgers (no collectives); in the steady state\nwith "
                yield escape(t_6(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunk')))
                yield '-token chunks the highest rate '
                if environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'one_token'):
                    pass
                    if environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'ttft_target'):
                        pass
                        yield 'whose steady TTFT meets its target'
                    else:
                        pass
                        yield 'of the steady state'
                else:
                    pass
                    yield 'whose steady TTFT and TPOT meet the targets'
                if (environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'one_token') and (not (environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'ttft_target') and (not t_16(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'ttft_tail_rate')))))):
                    pass
                else:
                    pass
                    yield ' (the tails below are stricter)'
                yield ' is '
                if (environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'goodput') > 0):
                    pass
                    yield '<strong>'
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'goodput')))
                    yield ' requests/s</strong>, set by '
                    yield escape(environment.getitem((undefined(name='why') if l_0_why is missing else l_0_why), environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'goodput_binds')))
                else:
                    pass
                    yield 'none ('
                    yield escape(environment.getitem((undefined(name='why') if l_0_why is missing else l_0_why), environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'goodput_binds')))
                    yield ')'
                yield ';\nwith each prompt prefilled alone it is '
                if (environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'goodput') > 0):
                    pass
                    yield '<strong>'
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'goodput')))
                    yield ' requests/s</strong>, set by '
                    yield escape(environment.getitem((undefined(name='why') if l_0_why is missing else l_0_why), environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'goodput_binds')))
                else:
                    pass
                    yield 'none ('
                    yield escape(environment.getitem((undefined(name='why') if l_0_why is missing else l_0_why), environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'goodput_binds')))
                    yield ')'
                if (not environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'one_token')):
                    pass
                    yield ',\nand a round that waits for a whole prefill takes at least '
                    yield escape(t_14(environment.getitem(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'stall'), 0)))
                    if environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'tpot_target'):
                        pass
                        if (environment.getitem(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'stall'), 0) > environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'tpot_target')):
                            pass
                            yield ', over the TPOT target whenever a prompt arrives'
                        else:
                            pass
                            yield ', within the TPOT target'
                yield '.</p>\n'
                yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig11-rates'))
                yield '\n'
                t_20 = []
                pass
                if (environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'ttft_target') and (not t_16(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'ttft_tail_rate')))):
                    pass
                    t_20.append(
                        'With the prompts queued for their prefills (an ',
                    )
                    if t_15(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_classes')):
                        pass
                        t_20.append(
                            'M/G/1',
                        )
                    else:
                        pass
                        t_20.append(
                            'M/D/1',
                        )
                    t_20.append(
                        ' queue',
                    )
                    if environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'one_token'):
                        pass
                        t_20.append(
                            ', each prompt served in turn, whose server idles whenever none waits: no decode round runs between the prefills; an engine that batches short prompts into one pass does better',
                        )
                    else:
                        pass
                        t_20.append(
                            ' whose server leaves for a round, or a plain step with chunks, whenever none waits',
                        )
                    t_20.extend((
                        ') the P90 TTFT meets ',
                        escape(t_14(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'ttft_target'))),
                        '\nup to <strong>',
                        escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'ttft_tail_rate'))),
                        ' requests/s</strong> with chunks and <strong>',
                        escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'ttft_tail_rate'))),
                        '</strong> without',
                    ))
                    if ((environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'ttft_tail_binds') != 'P90 TTFT target') and (environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'ttft_tail_binds') != 'P90 TTFT target')):
                        pass
                        t_20.append(
                            ', where the curves stop: the TTFT tail does not bind',
                        )
                    t_20.append(
                        '.',
                    )
                l_0_ttft_tail = (Markup if context.eval_ctx.autoescape else identity)(concat(t_20))
                context.vars['ttft_tail'] = l_0_ttft_tail
                context.exported_vars.add('ttft_tail')
                if ((environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'one_token') and environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'ttft_target')) and (not t_16(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'ttft_tail_rate')))):
                    pass
                    yield '<p data-static>The tail: '
                    yield escape((undefined(name='ttft_tail') if l_0_ttft_tail is missing else l_0_ttft_tail))
                    yield '</p>\n'
                elif (environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'tpot_target') and (not t_16(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'p99_rate')))):
                    pass
                    yield '<p data-static>The tail: Sarathi-Serve judges capacity by the P99 time between tokens (TBT), here the TPOT target θ = '
                    yield escape(t_14(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'tpot_target')))
                    yield '.\nWithout chunks the scheduler prefills every waiting prompt before the next round (vLLM v0), so with Poisson arrivals the prompts K\nprefilled in one gap follow the generalized Poisson law P(K = k) = a (a + ρk)<sup>k−1</sup> e<sup>−a−ρk</sup> / k!, a = λ t<sub>r</sub>,\nρ = λ t<sub>p</sub> (t<sub>r</sub> the round alone, t<sub>p</sub> = '
                    yield escape(t_14(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prefill_alone_time')))
                    yield ' a prefill of the uncached prompt '
                    if (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas') > 1):
                        pass
                        yield 'on one '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield "'s slice while each of the "
                        yield escape(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas'))
                        yield ' replicas of its expert group prefills one (their MoE layers gather the prompts)'
                    else:
                        pass
                        yield 'alone on one '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield "'s slice"
                    yield ', no collectives); a gap of t<sub>r</sub> + k t<sub>p</sub> meets θ while\nk ≤ m<sub>s</sub> = ⌊(θ − t<sub>r</sub>) / t<sub>p</sub>⌋, so the P99 capacity is the highest λ with P(K ≤ m<sub>s</sub>) ≥ 0.99, solved numerically\n(where no prefill fits a gap it is λ t<sub>r</sub>(λ) = −ln 0.99). With chunks the tail is a step with a full chunk'
                    t_21 = []
                    pass
                    if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                        pass
                        t_21.extend((
                            "round's ",
                            escape(environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps')),
                            ' steps of ',
                            escape(t_6(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunk'))),
                            ' tokens (one per micro-batch)',
                        ))
                    else:
                        pass
                        t_21.extend((
                            escape(t_6(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunk'))),
                            '-token budget',
                        ))
                    l_0_budget_words = (Markup if context.eval_ctx.autoescape else identity)(concat(t_21))
                    context.vars['budget_words'] = l_0_budget_words
                    context.exported_vars.add('budget_words')
                    if environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_plain'):
                        pass
                        yield '; here fewer than 1% of the steps carry one at the P99 capacity, so the tail is the steady step'
                    elif environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_whole_prompt'):
                        pass
                        yield ', here a whole prompt'
                        if t_15(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_prompt')):
                            pass
                            yield ' of '
                            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_prompt')))
                            yield " tokens (its steps and the longer prompts' are more than 1% of all steps)"
                        yield ': the '
                        yield escape((undefined(name='budget_words') if l_0_budget_words is missing else l_0_budget_words))
                        yield ' '
                        if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                            pass
                            yield 'hold'
                        else:
                            pass
                            yield 'holds'
                        yield " it beside the running sequences' decode tokens, so the chunk is a whole prefill run beside them"
                    elif (t_15(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_chunk')) and (not t_16(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_chunk')))):
                        pass
                        yield ', here '
                        yield escape(t_6(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_chunk')))
                        yield ' prompt tokens'
                        if t_15(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_prompt')):
                            pass
                            yield ' of a '
                            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_prompt')))
                            yield '-token prompt'
                        yield ': what the '
                        yield escape((undefined(name='budget_words') if l_0_budget_words is missing else l_0_budget_words))
                        yield ' '
                        if (environment.getattr(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'techniques'), 'chunk_steps') > 1):
                            pass
                            yield 'leave'
                        else:
                            pass
                            yield 'leaves'
                        yield " beside the running sequences' decode tokens at the P99 capacity"
                    yield '.\n'
                    if t_15(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_classes')):
                        pass
                        yield "The prompts' lengths spread ("
                        yield escape(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_spread_source'))
                        yield '): '
                        yield escape(t_8(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_classes')))
                        yield ' equally likely lengths from '
                        yield escape(t_6(environment.getitem(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_classes'), 0)))
                        yield ' to '
                        yield escape(t_6(environment.getitem(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prompt_classes'), -1)))
                        yield ' tokens around the mean '
                        yield escape(t_6(environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'prompt')))
                        yield ', prefilled in '
                        yield escape(t_14(environment.getitem(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prefill_classes'), 0)))
                        yield ' to '
                        yield escape(t_14(environment.getitem(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'prefill_classes'), -1)))
                        yield ", so t<sub>p</sub> above is their mean, a gap's prefills are summed over the lengths (Kendall's identity), with chunks each length's chunk is a step of its own, and the prefill queue is an M/G/1 queue (Pollaczek-Khinchine).\n"
                    yield 'P99 capacity: <strong>'
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'chunked'), 'p99_rate')))
                    yield ' requests/s</strong> with chunks, <strong>'
                    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='ra') if l_0_ra is missing else l_0_ra), 'unchunked'), 'p99_rate')))
                    yield '</strong> without. '
                    yield escape((undefined(name='ttft_tail') if l_0_ttft_tail is missing else l_0_ttft_tail))
                    yield '</p>\n'
            if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_pools')):
                pass
                yield '<p data-shape="decode">Disaggregation: pools balanced for this request shape put this share of the '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield 's on prefill, each prompt taking\nt<sub>p,R</sub> at a prefill replica: '
                if ('prefix_capacity_after' in (undefined(name='n') if l_0_n is missing else l_0_n)):
                    pass
                    yield "the prompt's uncached part at the layout, its collectives\nincluded"
                else:
                    pass
                    yield "the whole prompt with the layout's collectives"
                if (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'prefill_stages') > 1):
                    pass
                    yield ", its pass\nthrough the stages, each stage's ledger in turn (the rows' prefill)"
                elif (environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'ep_group_replicas') > 1):
                    pass
                    yield ", with every replica of its expert group prefilling one at once (the rows' prefill; their TTFT is one prompt alone)"
                else:
                    pass
                    yield ", the rows' TTFT"
                yield " (not the rate figure's\nt<sub>p</sub>, the uncached prompt on one "
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield "'s slice)"
                if (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'prefill_stages') > 1):
                    pass
                    yield '; each\nprefill replica a pipeline of k<sub>pp</sub> = '
                    yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'prefill_stages'))
                    yield " stages that admits a prompt every t<sub>p,R</sub> / k<sub>pp</sub>, each prompt's\nfirst token at its TTFT (DistServe, section 3.1; a whole replica, k<sub>pp</sub> = 1, admits one every t<sub>p,R</sub>)"
                yield ':</p>\n<div class="static-fx" data-static>'
                yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_pools'), False))
                yield '</div>\n'
                if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_one_pool')):
                    pass
                    yield '<p data-static>The row\'s "before" is one pool of these replicas that prefills whole prompts between its decode\nrounds, each round\'s users waiting for the prompts that replace the sequences it finishes (the same work per request\nas the pools, <code>plan --disaggregate</code>\'s one pool)'
                    if environment.getattr((undefined(name='serving') if l_0_serving is missing else l_0_serving), 'tpot_target'):
                        pass
                        yield ', at the largest batch whose TPOT meets the target:\n'
                        if environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'one_pool_batch'):
                            pass
                            yield 'batch '
                            yield escape(t_6(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'one_pool_batch')))
                        else:
                            pass
                            yield "none, even one sequence misses it (batch 1's numbers shown)"
                    else:
                        pass
                        yield ", at the chapter's batch (no TPOT target)"
                    yield '. The pools\ngain only where the TPOT target holds that pool to a smaller batch than the decode pool runs (DistServe, section 2):</p>\n<div class="static-fx" data-static>'
                    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_one_pool'), False))
                    yield '</div>'
                if t_15(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_group_gpus')):
                    pass
                    yield '<p data-static>An expert-parallel group here spans '
                    yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_group_gpus'))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's (ep &gt; tp): no replica\nruns its MoE layers alone, so each pool is a whole number of groups, p = round(n<sub>P</sub><sup>*</sup> &times; the groups)\nprefill groups, at least 1 and at most all but one, the rest decode. '
                    if (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_gpus') > environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_users_gpus')):
                        pass
                        yield 'The users take '
                        yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_users_gpus'))
                        yield ' '
                        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                        yield 's, one group, which\ncannot be split: disaggregation needs at least two, so the row splits '
                        yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_gpus'))
                    else:
                        pass
                        yield "The row splits the users' "
                        yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_gpus'))
                    yield ' '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield 's: '
                    yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_prefill_groups'))
                    yield '\ngroup'
                    if (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_prefill_groups') > 1):
                        pass
                        yield 's prefill'
                    else:
                        pass
                        yield ' prefills'
                    yield ', '
                    yield escape(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_decode_groups'))
                    yield ' decode'
                    if (environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_decode_groups') == 1):
                        pass
                        yield 's'
                    yield ', and the pools serve the lesser of their rates,\nmin('
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_prefill_rate')))
                    yield ', '
                    yield escape(t_10(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_decode_rate')))
                    yield ') requests/s: tok/s per '
                    yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                    yield ' '
                    yield escape(t_12(environment.getattr((undefined(name='n') if l_0_n is missing else l_0_n), 'pool_gain')))
                    yield " of the same replicas' decoding alone.</p>\n"
                if t_15(environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_kv')):
                    pass
                    yield '<div class="static-fx" data-static>'
                    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 'tech_kv'), False))
                    yield '</div>'
        yield '</section>\n'

blocks = {}
debug_info = '1=132&2=141&3=143&4=147&5=151&6=153&7=161&8=169&9=181&10=186&11=191&12=208&13=210&14=215&16=227&18=237&19=246&21=249&24=253&25=259&26=278&28=284&29=286&30=304&31=312&32=316&33=323&34=330&37=340&38=447&39=480&40=554&42=603&43=644&44=665&45=752&46=758&47=764&48=778&51=780&54=783&55=805&56=821&57=825&58=831&59=850&60=858&61=862&62=864&63=872&64=880&65=884&68=900&70=916&72=919&75=921&76=923&79=929&81=933&82=938&85=940&86=942&87=979&88=981&90=984&91=986&92=994&94=1123&95=1129&96=1131&97=1162&100=1165&101=1167&102=1208&103=1237&104=1269&105=1280&106=1283&109=1287&116=1291&117=1300&118=1304&119=1335&120=1349&121=1359&122=1363&123=1368&124=1395&122=1408&124=1411&125=1416&128=1421&130=1438&131=1498&132=1516&135=1522&136=1527&137=1533&138=1536&139=1543&140=1548&142=1551&143=1553&145=1556&146=1559&148=1570&149=1572&151=1579&152=1586&153=1596&154=1609&156=1617'