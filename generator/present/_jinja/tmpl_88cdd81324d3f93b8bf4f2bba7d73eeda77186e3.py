from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'sections/s1_waiting.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_GPU = resolve('GPU')
    l_0_frame = resolve('frame')
    l_0_ch = resolve('ch')
    l_0_frame_rows = resolve('frame_rows')
    l_0_moe_text = resolve('moe_text')
    l_0_hw = resolve('hw')
    l_0_sc = resolve('sc')
    l_0_fx = resolve('fx')
    l_0_figs = resolve('figs')
    l_0_facts = resolve('facts')
    l_0_precision = resolve('precision')
    l_0_model = resolve('model')
    l_0_hierarchy = resolve('hierarchy')
    l_0_states = resolve('states')
    l_0_formula = l_0_figure = l_0_pill = l_0_card = l_0_mx = missing
    try:
        t_1 = environment.filters['bandwidth']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'bandwidth' found.")
    try:
        t_2 = environment.filters['gib']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'gib' found.")
    try:
        t_3 = environment.filters['integer']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'integer' found.")
    try:
        t_4 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_5 = environment.filters['max']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'max' found.")
    try:
        t_6 = environment.filters['memsize']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'memsize' found.")
    try:
        t_7 = environment.filters['min']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'min' found.")
    try:
        t_8 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_9 = environment.filters['pct']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'pct' found.")
    try:
        t_10 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_11 = environment.filters['sig3']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'sig3' found.")
    try:
        t_12 = environment.filters['sum']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'sum' found.")
    try:
        t_13 = environment.filters['time']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'time' found.")
    try:
        t_14 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_14(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    included_template = environment.get_template('_macros.html.j2', 'sections/s1_waiting.html.j2').make_module(context.get_all(), True, {'card': l_0_card, 'figure': l_0_figure, 'formula': l_0_formula, 'mx': l_0_mx, 'pill': l_0_pill})
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
    l_0_card = ('card' if ((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU) == 'GPU') else (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
    context.vars['card'] = l_0_card
    context.exported_vars.add('card')
    yield '<section id="s1">\n<h2>1. A machine waiting for data</h2>\n'
    if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
        pass
        yield '<div data-static>\n<h3>One '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield ' of '
        yield escape(t_3(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'gpus')))
        yield '</h3>\n<p>This report states the numbers of the layout in its title, '
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'label'))
        yield ' on '
        yield escape(t_3(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'gpus')))
        yield ' '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield 's'
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp') > 1):
            pass
            yield ' ('
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
            yield ' data-parallel replicas of '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus'))
            yield ' '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield escape(('s' if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus') > 1) else cond_expr_undefined("the inline if-expression on line 9 in 'sections/s1_waiting.html.j2' evaluated to false and no else section was defined.")))
            yield ')'
        yield '.\nEach '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield ' holds and computes a slice of the model, so the formulas of chapters 1–'
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's6'))
        yield " are the seeds' single-"
        yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
        yield ' ones\nwith that slice in place of the whole model (the symbols with a subscript g):</p>\n<div class="scroll"><table class="slice"><thead><tr><th>symbol</th><th>one '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield '\'s slice</th><th class="n">value</th><th class="n">whole model</th></tr></thead><tbody>\n'
        for l_1_s in (undefined(name='frame_rows') if l_0_frame_rows is missing else l_0_frame_rows):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(t_10(environment.getattr(l_1_s, 'math')))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_s, 'meaning'))
            yield '</td><td class="n">'
            yield escape(environment.getattr(l_1_s, 'value'))
            yield '</td><td class="n">'
            yield escape(environment.getattr(l_1_s, 'card'))
            yield '</td></tr>'
        l_1_s = missing
        yield '</tbody></table></div>\n'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers'):
            pass
            yield '<p>The '
            yield escape(t_3(t_12(environment, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers'))))
            yield ' layers do not divide into '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield ' even stages: '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stages_busiest'))
            yield ' stage'
            yield escape(('s' if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stages_busiest') > 1) else cond_expr_undefined("the inline if-expression on line 15 in 'sections/s1_waiting.html.j2' evaluated to false and no else section was defined.")))
            yield ' of '
            yield escape(t_5(environment, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers')))
            yield ' layers and '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stages_other'))
            yield ' of '
            yield escape(t_7(environment, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers')))
            yield ' (vLLM gives the extra layers to the stages before the last, from the second-to-last back).\nThe busiest stage sets each '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s share of a round, so n<sub>PP</sub> in the time formulas is the layers over its layers,\nL / ⌈L / "
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield '⌉ = '
            yield escape(t_3(t_12(environment, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers'))))
            yield ' / '
            yield escape(t_5(environment, environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_layers')))
            yield ' = '
            yield escape(t_11(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp_split')))
            yield ', not '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield '.</p>\n'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'):
            pass
            yield '<p>The stages do not hold the same memory: the first also holds the input embedding'
            if environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'dense_first'):
                pass
                yield ' (and the dense first layers, lighter than the MoE ones)'
            yield ', the last the output head'
            if environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'tied'):
                pass
                yield ' (its own copy of the tied embedding)'
            yield ' and the final norm, and it alone computes the logits'
            if environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'uneven_globals'):
                pass
                yield '; the global layers, which cache the whole context, fall unevenly on the stages'
            yield '.\nWhat a replica holds is what the stage that holds the fewest tokens holds: stage '
            yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'stage'))
            yield ' of '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            if environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'bounded'):
                pass
                yield ' within every window (at a longer context the stage with more global layers may bind: each capacity takes the stage that binds at its context)'
            yield '.\nIts weights and cache are N<sub>b,g</sub> and c<sub>b,g</sub> in the table, and the memory formulas (the capacities of chapter '
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's4'))
            yield ', the memory a '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' needs) divide the weights by n<sub>PW</sub> = '
            yield escape(t_11(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'n_pw')))
            yield ' and the cache by n<sub>PK</sub> = '
            yield escape(t_11(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'n_pk')))
            yield ' (the time formulas by n<sub>PP</sub> = '
            yield escape(t_11(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'n_pp')))
            yield ').\nThe times are those of a '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' of the busiest stage before the last: its '
            yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'busiest_layers'))
            yield ' layers without the output head (V<sub>g</sub> = 0 in the table), which the last stage streams and multiplies beside its '
            yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'last_layers'))
            yield " layers; a round lasts at least the longer of the two stages' ledgers and its micro-batches' walk through every stage (chapter "
            yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
            yield ').\n'
            if environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'):
                pass
                yield 'Their attention is not that of mean layers, though: the stages hold '
                yield escape(t_4(context.eval_ctx, environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'globals')[:-1], ', '))
                yield ' and '
                yield escape(environment.getitem(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'globals'), -1))
                yield ' global layers, which read the whole context, where '
                if environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'busiest_differs'):
                    pass
                    yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'busiest_layers'))
                    yield ' mean layers would hold '
                    yield escape(t_11(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'busiest_mean')))
                    if environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'last_differs'):
                        pass
                        yield ' and '
                        yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'last_layers'))
                        yield ', '
                        yield escape(t_11(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'last_mean')))
                else:
                    pass
                    yield "the last stage's "
                    yield escape(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'last_layers'))
                    yield ' mean layers would hold '
                    yield escape(t_11(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'last_mean')))
                yield '.\nSo the ledgers of a '
                yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
                yield " of the busiest stage take its own layers' attention, "
                yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'busiest'))
                yield " of them global (κ<sub>B</sub> in the formulas), the last stage's its own, "
                yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'last'))
                yield " (κ<sub>L</sub>), and a micro-batch's walk through every stage the stages before the last at theirs together, "
                yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'before'))
                yield " (κ<sub>F</sub>; the model's "
                yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'stage_memory'), 'share'), 'model'))
                yield "), and the last at its own: each term is then a real stage's or at most the real walk, and the bound a bound."
            yield '</p>\n'
        yield '<p>Times, FLOPs, bytes and intensities are one '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield "'s during a decode round of its replica (the "
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield 's of a\nreplica work at once); KV capacities and sequences are per replica ('
        yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus'))
        yield ' '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield escape(('s' if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'replica_gpus') > 1) else cond_expr_undefined("the inline if-expression on line 25 in 'sections/s1_waiting.html.j2' evaluated to false and no else section was defined.")))
        yield ' holding one copy of the model);\ntoken rates are per replica at the strict bound, the interconnect included (chapter '
        yield escape(environment.getattr((undefined(name='ch') if l_0_ch is missing else l_0_ch), 's7'))
        yield ')'
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp') > 1):
            pass
            yield ', and a batch B is per data-parallel replica: the '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
            yield ' replicas serve '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'dp'))
            yield ' B sequences'
        yield '.\n'
        if (environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp') > 1):
            pass
            yield 'With '
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield " pipeline stages a round's B sequences pass each "
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield ' in micro-batches, and each micro-batch streams the '
            yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
            yield "'s slice again and walks the stages in turn: fewer micro-batches stream less, more keep the stages busy. The strict bound takes, at each point, the split into m<sub>b</sub> of 1 to min("
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield ', B) micro-batches whose round is the least; vLLM and TensorRT-LLM run min('
            yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
            yield ', B), as the serial estimate does. At a batch B ≥ 2 '
            if (undefined(name='moe_text') if l_0_moe_text is missing else l_0_moe_text):
                pass
                yield "a round streams, in each of its m<sub>b</sub> micro-batches, the slice's dense weights and at least the experts that vLLM's micro-batch of B / min("
                yield escape(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'pp'))
                yield ', B) sequences touches (a larger one touches no fewer): N<sub>s,g</sub> in the formulas of such a round, not N<sub>g</sub>, the slice the table above defines'
            else:
                pass
                yield 'a round streams m<sub>b</sub> times the slice: N<sub>r,g</sub> = m<sub>b</sub> N<sub>g</sub> in the formulas of such a round, N<sub>g</sub> the slice the table above defines'
            yield '.\n'
        if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'):
            pass
            yield 'On one '
            yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
            yield ' the whole model would need '
            yield escape(t_13(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'weight_stream_time')))
            yield ' per batch-1 token'
            if (not environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'fits')):
                pass
                yield ' and would not fit: '
                yield escape(t_2(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'weight_bytes')))
                yield ' of weights against '
                if (environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'capacity') > 0):
                    pass
                    yield 'the '
                    yield escape(t_2(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'capacity')))
                    yield ' one '
                    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
                    yield ' alone keeps for them (its '
                    yield escape(t_2(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'capacity')))
                    yield " less the engine's reserve and one "
                    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
                    yield "'s workspace"
                else:
                    pass
                    yield 'nothing one '
                    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
                    yield ' alone keeps for them (one '
                    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
                    yield "'s workspace for the engine's step takes all of its "
                    yield escape(t_2(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'capacity')))
                    yield ' the reserve leaves'
                if (t_2(environment.getattr(environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'one_card'), 'capacity')) != t_2(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'capacity'))):
                    pass
                    yield '; a '
                    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
                    yield ' of this layout keeps '
                    yield escape(t_2(environment.getattr((undefined(name='sc') if l_0_sc is missing else l_0_sc), 'capacity')))
                    yield ", its workspace the layout's"
                yield ')'
            yield '.'
        yield '</p>\n</div>\n'
    yield '<p>'
    if environment.getattr((undefined(name='frame') if l_0_frame is missing else l_0_frame), 'many'):
        pass
        yield 'At batch 1 each '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield ' must read its slice of the weights once per step and do about two FLOPs per weight.'
    else:
        pass
        yield 'One decode step at batch 1 must read every weight once and do about two FLOPs per weight.'
    yield ' Each has a lower bound:\nthe bytes over the bandwidth, and the FLOPs over the peak. The step cannot be faster than the larger one.</p>\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 't_mem')))
    yield '\n'
    yield escape(context.call((undefined(name='formula') if l_0_formula is missing else l_0_formula), environment.getattr((undefined(name='fx') if l_0_fx is missing else l_0_fx), 't_comp')))
    yield '\n'
    if (undefined(name='moe_text') if l_0_moe_text is missing else l_0_moe_text):
        pass
        yield '<p data-static>'
        yield escape((undefined(name='moe_text') if l_0_moe_text is missing else l_0_moe_text))
        yield '</p>'
    yield escape(context.call((undefined(name='figure') if l_0_figure is missing else l_0_figure), (undefined(name='figs') if l_0_figs is missing else l_0_figs), 'fig1-decode-bounds'))
    yield '\n<p>The ratio of the two bounds is <span data-fact="bound_ratio">'
    yield escape(t_8(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'bound_ratio')))
    yield '</span>'
    if ((environment.getattr((undefined(name='precision') if l_0_precision is missing else l_0_precision), 'weight_bytes') == 2) and t_14(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'moe'))):
        pass
        yield '<span data-static>, the ridge point itself: at\nbatch 1 in 16-bit weights the intensity is 2N / (2N) = 1 FLOP/B, and a ratio of two lower bounds at intensity 1 is\nP/W</span>'
    yield '.</p>\n<div class="callout"><span data-static>'
    if ((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU) == 'GPU'):
        pass
        yield '“GPU utilisation 99%” in <code>nvidia-smi</code>'
    else:
        pass
        yield 'A '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield ' utilisation of 99% in '
        yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'vendor'))
        yield "'s monitoring tools (what <code>nvidia-smi</code> calls “GPU utilisation”)"
    yield '</span> means a kernel was running during 99% of the sampling\n'
    l_0_mx = ('tensor cores' if (environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'vendor') == 'NVIDIA') else 'matrix units')
    context.vars['mx'] = l_0_mx
    context.exported_vars.add('mx')
    l_0_card = ('card' if ((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU) == 'GPU') else (undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
    context.vars['card'] = l_0_card
    context.exported_vars.add('card')
    yield 'window. It says nothing about how busy the <span data-static>'
    yield escape((undefined(name='mx') if l_0_mx is missing else l_0_mx))
    yield '</span> or the memory bus were: a <span data-static>'
    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
    yield '</span> starved by bandwidth and a\n<span data-static>'
    yield escape((undefined(name='card') if l_0_card is missing else l_0_card))
    yield '</span> saturating its compute both show 99%. Nor does <span data-fact="bound_ratio">'
    yield escape(t_8(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'bound_ratio')))
    yield '</span>:1 mean the <span data-static>'
    yield escape((undefined(name='mx') if l_0_mx is missing else l_0_mx))
    yield '</span> idle\n<span data-fact="compute_idle_share">'
    yield escape(t_9(environment.getattr((undefined(name='facts') if l_0_facts is missing else l_0_facts), 'compute_idle_share')))
    yield '</span> of the wall-clock time: the two bounds overlap, and the ratio compares two lower bounds.</div>\n'
    if (undefined(name='hierarchy') if l_0_hierarchy is missing else l_0_hierarchy):
        pass
        yield "<h3>Where the data lives</h3>\n<p data-static>Seed 000's four levels of memory: the nearer, the faster and the smaller. This "
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield '\'s sizes, from its spec:</p>\n<div class="scroll" data-static><table>\n<thead><tr><th>level</th><th>scope</th><th class="n">size</th><th class="n">whole '
        yield escape((undefined(name='GPU') if l_0_GPU is missing else l_0_GPU))
        yield '</th><th>managed by</th></tr></thead>\n<tbody>'
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
                yield escape(t_6(environment.getattr(l_1_h, 'size')))
                if (environment.getattr(l_1_loop, 'index') <= 2):
                    pass
                    yield ' per SM'
            else:
                pass
                yield 'not in the spec'
            yield '</td>\n<td class="n">'
            if environment.getattr(l_1_h, 'total'):
                pass
                yield escape(t_6(environment.getattr(l_1_h, 'total')))
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
        yield escape(t_9(environment.getattr(environment.getitem((undefined(name='states') if l_0_states is missing else l_0_states), 0), 'near_peak'), 0))
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
debug_info = '1=110&3=122&6=126&8=129&9=133&10=150&12=156&13=158&15=172&16=189&17=191&18=201&19=216&20=223&21=233&22=241&23=266&24=278&25=282&26=287&27=297&28=319&31=362&33=371&34=373&35=375&36=380&37=382&40=388&41=399&42=410&43=416&44=418&46=421&48=423&49=426&50=434&51=444&52=455&57=459&60=462&63=465&64=478'