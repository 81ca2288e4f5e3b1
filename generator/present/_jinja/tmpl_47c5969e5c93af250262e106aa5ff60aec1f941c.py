from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = '_macros.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_formula = l_0_figure = l_0_pill = missing
    try:
        t_1 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_2 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_3 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_4 = environment.tests['string']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'string' found.")
    pass
    def macro(l_1_b, l_1_show_steps):
        t_5 = []
        l_1_eq = resolve('eq')
        l_1_ref = resolve('ref')
        l_1_k = missing
        if l_1_b is missing:
            l_1_b = undefined("parameter 'b' was not provided", name='b')
        if l_1_show_steps is missing:
            l_1_show_steps = True
        pass
        l_1_k = context.call(environment.getattr((undefined(name='eq') if l_1_eq is missing else l_1_eq), 'number'), environment.getattr(l_1_b, 'anchor'))
        t_5.extend((
            '<div class="formula" id="',
            escape(environment.getattr(l_1_b, 'anchor')),
            '">\n  <span class="eqno">(',
            escape((undefined(name='k') if l_1_k is missing else l_1_k)),
            ')</span>\n',
        ))
        if (l_1_show_steps and environment.getattr(l_1_b, 'steps')):
            pass
            t_5.append(
                '  <div class="derivation">\n',
            )
            l_2_loop = missing
            for l_2_st, l_2_loop in LoopContext(environment.getattr(l_1_b, 'steps'), undefined):
                l_2_ref = l_1_ref
                _loop_vars = {}
                pass
                l_2_ref = context.call(environment.getattr((undefined(name='eq') if l_1_eq is missing else l_1_eq), 'earlier'), environment.getattr(l_2_st, 'tex'), environment.getattr(l_1_b, 'anchor'), (None if environment.getattr(l_2_loop, 'last') else environment.getattr(l_2_loop, 'index')), _loop_vars=_loop_vars)
                _loop_vars['ref'] = l_2_ref
                t_5.extend((
                    '    <div class="label">',
                    escape(environment.getattr(l_2_loop, 'index')),
                    '. ',
                    escape(environment.getattr(l_2_st, 'label')),
                ))
                if (undefined(name='ref') if l_2_ref is missing else l_2_ref):
                    pass
                    t_5.append(
                        ': as in ',
                    )
                    if environment.getattr((undefined(name='ref') if l_2_ref is missing else l_2_ref), 'step'):
                        pass
                        t_5.extend((
                            'step ',
                            escape(environment.getattr((undefined(name='ref') if l_2_ref is missing else l_2_ref), 'step')),
                            ' of ',
                        ))
                    t_5.extend((
                        '(<a href="#',
                        escape(environment.getattr((undefined(name='ref') if l_2_ref is missing else l_2_ref), 'anchor')),
                        '">',
                        escape(environment.getattr((undefined(name='ref') if l_2_ref is missing else l_2_ref), 'number')),
                        '</a>)',
                    ))
                t_5.append(
                    '</div>\n',
                )
                if (not (undefined(name='ref') if l_2_ref is missing else l_2_ref)):
                    pass
                    t_5.append(
                        escape(t_2(environment.getattr(l_2_st, 'math'))),
                    )
            l_2_loop = l_2_st = l_2_ref = missing
            t_5.append(
                '  </div>\n',
            )
        else:
            pass
            l_1_ref = context.call(environment.getattr((undefined(name='eq') if l_1_eq is missing else l_1_eq), 'earlier'), environment.getattr(l_1_b, 'symbolic_tex'), environment.getattr(l_1_b, 'anchor'))
            t_5.extend((
                '  ',
                escape(t_2(environment.getattr(l_1_b, 'symbolic'))),
                '\n',
            ))
        t_5.extend((
            '  <div class="sub" data-static>',
            escape(t_2(environment.getattr(l_1_b, 'substituted'))),
            '</div>\n  <div class="res"',
        ))
        if environment.getattr(l_1_b, 'res_static'):
            pass
            t_5.append(
                ' data-static',
            )
        t_5.extend((
            '>= <strong>',
            escape(environment.getattr(l_1_b, 'result')),
            '</strong>',
        ))
        if environment.getattr(l_1_b, 'params'):
            pass
            t_5.append(
                ' <span class="meta" data-static>at ',
            )
            l_2_loop = missing
            for (l_2_k2, l_2_v), l_2_loop in LoopContext(context.call(environment.getattr(environment.getattr(l_1_b, 'params'), 'items')), undefined):
                _loop_vars = {}
                pass
                t_5.extend((
                    escape(l_2_k2),
                    ' ',
                    escape((l_2_v if t_4(l_2_v) else t_1(l_2_v))),
                ))
                if (not environment.getattr(l_2_loop, 'last')):
                    pass
                    t_5.append(
                        ', ',
                    )
            l_2_loop = l_2_k2 = l_2_v = missing
            t_5.append(
                '</span>',
            )
        if (environment.getattr(l_1_b, 'accounting') == 'exact'):
            pass
            t_5.append(
                '<span class="pill">exact accounting</span>',
            )
        t_5.append(
            '</div>\n',
        )
        if environment.getattr(l_1_b, 'reason'):
            pass
            t_5.extend((
                '<p class="note" data-static>No value: ',
                escape(environment.getattr(l_1_b, 'reason')),
                '.</p>',
            ))
        if t_3(environment.getattr(l_1_b, 'note')):
            pass
            t_5.extend((
                '<p class="note" data-static>',
                escape(environment.getattr(l_1_b, 'note')),
                '</p>',
            ))
        t_5.extend((
            '  <div class="src">Source: ',
            escape(environment.getattr(l_1_b, 'source')),
            '</div>\n</div>\n',
        ))
        return concat(t_5)
    context.exported_vars.add('formula')
    context.vars['formula'] = l_0_formula = Macro(environment, macro, 'formula', ('b', 'show_steps'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_figs, l_1_name):
        t_6 = []
        l_1_eq = resolve('eq')
        l_1_n = resolve('n')
        if l_1_figs is missing:
            l_1_figs = undefined("parameter 'figs' was not provided", name='figs')
        if l_1_name is missing:
            l_1_name = undefined("parameter 'name' was not provided", name='name')
        pass
        if ((l_1_name in l_1_figs) and environment.getattr(environment.getitem(l_1_figs, l_1_name), 'src')):
            pass
            l_1_n = context.call(environment.getattr((undefined(name='eq') if l_1_eq is missing else l_1_eq), 'figure'), l_1_name)
            t_6.extend((
                '<figure id="',
                escape(l_1_name),
                '"',
            ))
            if (l_1_name not in ('fig6-roofline', 'fig4-decode-intensity')):
                pass
                t_6.append(
                    ' data-static',
                )
            t_6.append(
                '>\n  <picture>',
            )
            if environment.getattr(environment.getitem(l_1_figs, l_1_name), 'narrow'):
                pass
                t_6.extend((
                    '<source media="(max-width: 40rem)" srcset="',
                    escape(environment.getattr(environment.getitem(l_1_figs, l_1_name), 'narrow')),
                    '">',
                ))
            t_6.extend((
                '    <img src="',
                escape(environment.getattr(environment.getitem(l_1_figs, l_1_name), 'src')),
                '" alt="Figure ',
                escape((undefined(name='n') if l_1_n is missing else l_1_n)),
                ': ',
                escape(environment.getattr(environment.getitem(l_1_figs, l_1_name), 'caption')),
                '">\n  </picture>\n  <figcaption><strong>Figure ',
                escape((undefined(name='n') if l_1_n is missing else l_1_n)),
                '.</strong> ',
                escape(environment.getattr(environment.getitem(l_1_figs, l_1_name), 'caption')),
                '</figcaption>\n</figure>\n',
            ))
        return concat(t_6)
    context.exported_vars.add('figure')
    context.vars['figure'] = l_0_figure = Macro(environment, macro, 'figure', ('figs', 'name'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_kind):
        t_7 = []
        if l_1_kind is missing:
            l_1_kind = undefined("parameter 'kind' was not provided", name='kind')
        pass
        t_7.extend((
            '<span class="pill ',
            escape(l_1_kind),
            '">',
            escape(l_1_kind),
            '</span>',
        ))
        return concat(t_7)
    context.exported_vars.add('pill')
    context.vars['pill'] = l_0_pill = Macro(environment, macro, 'pill', ('kind',), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '1=36&2=46&3=49&4=51&5=54&7=60&8=64&9=68&10=94&14=105&15=108&17=113&18=116&19=149&20=157&21=164&22=173&26=180&27=189&28=191&29=194&31=205&32=214&34=220&39=229'