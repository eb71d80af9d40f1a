//! Lowering of a whole translation unit: top-level declarations, function
//! signatures and bodies, and the whole-program checks (a `main`, no
//! recursion).

use super::analysis::scan::AddressUse;
use super::analysis::specialisations::SizeUnit;
use super::c_types::types::{self, CType};
use super::calls::builtins::is_builtin;
use super::lower::{Binding, FnLowerer, LResult, Lowerer, binary};
use super::source::source_map::SourceMap;
use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::*;
use crate::options::{AddressForm, BoundChoice, TranslateOptions};
use lang_c::ast::*;
use lang_c::span::Node;
use std::collections::HashSet;
use std::path::PathBuf;

/// Default heap block size (scalars) when no allocation has a constant size.
const DEFAULT_HEAP_BLOCK: u32 = 8;

/// Lowers a parsed translation unit.
pub fn lower_unit(
    map: &SourceMap,
    unit: &TranslationUnit,
    options: &TranslateOptions,
) -> Result<Program, Box<Diagnostic>> {
    let given = options.bounds.bitwidth;
    let lowered = lower_unit_at(map, unit, options, given);
    if options.auto_bounds.bitwidth == BoundChoice::Given || given >= WIDEST_SCALAR {
        return lowered.map(|(program, _)| program);
    }
    // without --bitwidth, memory as wide as the scalars of shared memory
    // need (a `double`, a `long`); a failure at the given width may come
    // before the first of them (a 64-bit initial value before a `double`),
    // and when the program fails at both widths, the wider failure is the
    // one that holds (the narrow one may only be about the width)
    match lowered {
        Ok((program, needed)) if needed <= given => Ok(program),
        Ok(_) | Err(_) => Ok(lower_unit_at(map, unit, options, WIDEST_SCALAR)?.0),
    }
}

/// The bits of the widest scalar type lazysma models (`double`, `long`).
const WIDEST_SCALAR: u32 = 64;

/// Lowers the unit for shared memory of `value_bits` bits, with byte
/// addresses where the options ask for them; also gives the bits of the
/// widest scalar of shared memory.
fn lower_unit_at(
    map: &SourceMap,
    unit: &TranslationUnit,
    options: &TranslateOptions,
    value_bits: u32,
) -> Result<(Program, u32), Box<Diagnostic>> {
    let lowering = Lowering {
        byte_addresses: false,
        value_bits,
    };
    let byte_addresses = match options.addresses {
        AddressForm::Bytes => true,
        AddressForm::Locations => false,
        AddressForm::Auto => {
            let lowered = lower_unit_with(map, unit, options, lowering)?;
            if lowered.taken_apart_at.is_none() {
                return Ok((lowered.program, lowered.shared_bits_needed));
            }
            true
        }
    };
    let mut lowered = lower_unit_with(
        map,
        unit,
        options,
        Lowering {
            byte_addresses,
            ..lowering
        },
    )?;
    if let (false, Some(span)) = (byte_addresses, lowered.taken_apart_at) {
        lowered
            .program
            .warnings
            .push(location_numbers_warning(map, span));
    }
    Ok((lowered.program, lowered.shared_bits_needed))
}

/// How a unit is lowered: pointers as byte addresses or location numbers
/// ([`Program::byte_addresses`]), and the width of shared memory's values.
#[derive(Debug, Clone, Copy)]
struct Lowering {
    byte_addresses: bool,
    value_bits: u32,
}

/// A lowered unit, with what may ask for lowering it again: where it
/// first takes an address apart, and its widest scalar of shared memory,
/// in bits.
struct Lowered {
    program: Program,
    taken_apart_at: Option<lang_c::span::Span>,
    shared_bits_needed: u32,
}

/// The warning for a program that takes an address apart at `span` but
/// was given location numbers (`--addresses locations`).
fn location_numbers_warning(map: &SourceMap, span: lang_c::span::Span) -> Diagnostic {
    let mut warning = map.diagnostic(
        span.start,
        span.end,
        "an address is taken apart here, but `--addresses locations` numbers memory by locations, not bytes",
        "address taken apart",
        Some("tag bits and alignment tests do not behave as on hardware: a violation that depends on them is not real; leave out `--addresses locations`".to_string()),
    );
    warning.severity = Severity::Warning;
    warning
}

/// Lowers the unit as `lowering` says; also says where the program first
/// takes an address apart and how wide its scalars of shared memory are.
fn lower_unit_with(
    map: &SourceMap,
    unit: &TranslationUnit,
    options: &TranslateOptions,
    Lowering {
        byte_addresses,
        value_bits,
    }: Lowering,
) -> Result<Lowered, Box<Diagnostic>> {
    let bounds = &options.bounds;
    let heap_block = bounds.heap_block;
    let mut lw = Lowerer::new(map);
    lw.program.byte_addresses = byte_addresses;
    lw.program.value_bits = value_bits;
    lw.division_checks = options.division_checks;
    // the loop bound sizes variable-length arrays of thread handles
    let deepest = bounds
        .deepest_unwind()
        .max(super::analysis::scan::deepest_loop_bound(unit));
    lw.types.thread_array_bound = u64::from(deepest) + 1;
    lw.value_bits = value_bits;
    lw.widen_for_floating = options.auto_bounds.bitwidth != BoundChoice::Given;
    lw.function_values = super::analysis::scan::names_used_as_values(unit);
    lw.addressed_names = super::analysis::scan::names_with_address_taken(unit);
    lw.names_passed_by_address = super::analysis::scan::names_passed_by_address(unit);
    lw.types.member_uses = Some(super::analysis::scan::member_uses(unit));
    // a declaration of the program may begin with a system header's
    // macro (`bool g;` is `_Bool g;` from stdbool.h): it is the header's
    // only if it ends there too
    let system = |external: &Node<ExternalDeclaration>| {
        map.is_system(external.span.start) && map.is_system(external.span.end.saturating_sub(1))
    };
    // the functions first: a global's initialiser may name one defined
    // after it (`struct ops table = { .get = get };`)
    let mut definitions: Vec<&Node<FunctionDefinition>> = Vec::new();
    for external in &unit.0 {
        let ExternalDeclaration::FunctionDefinition(f) = &external.node else {
            continue;
        };
        if system(external) {
            continue;
        }
        let Some(name) = types::declarator_name(&f.node.declarator.node) else {
            continue;
        };
        if is_builtin(&name.node.name) {
            continue;
        }
        if lw.functions.contains_key(&name.node.name) {
            return lw.error(
                name.span,
                format!("`{}` is defined twice", name.node.name),
                "second definition",
            );
        }
        lw.functions
            .insert(name.node.name.clone(), definitions.len());
        definitions.push(f);
    }
    for external in &unit.0 {
        if let ExternalDeclaration::Declaration(d) = &external.node {
            top_declaration(&mut lw, d, system(external))?;
        }
    }
    for (id, definition) in definitions.iter().enumerate() {
        let (signature, variadic) = signature(&mut lw, definition)?;
        if variadic {
            lw.variadic.insert(id);
        }
        if let Some(name) = types::declarator_name(&definition.node.declarator.node) {
            lw.prototypes
                .insert(name.node.name.clone(), signature.1.clone());
        }
        note_size_parameters(&mut lw, id, definition, &signature.0);
        note_size_function(&mut lw, id, definition, &signature);
        lw.signatures.insert(id, signature);
    }
    let may_run = super::analysis::scan::functions_that_may_run(unit);
    let functions = lower_functions(&mut lw, &definitions, &may_run)?;
    let Some(&main) = lw.functions.get("main") else {
        return Err(Box::new(Diagnostic {
            message: "the program has no `main` function".into(),
            file: PathBuf::from(map.position(0).file),
            line: 0,
            column: 0,
            length: 1,
            label: "no main".into(),
            help: Some("define `int main(void)`".into()),
            severity: Severity::Error,
        }));
    };
    if let Some((caller, callee, origin)) = find_recursion(&functions) {
        return Err(Box::new(recursion_diagnostic(
            &lw, &functions, caller, callee, origin,
        )));
    }
    let mut program = std::mem::take(&mut lw.program);
    program.functions = functions;
    program.main = main;
    program.structs = lw.types.ir_structs();
    program.padding = lw.types.padding_members();
    std::mem::take(&mut lw.converted).finish(&mut program);
    program.shared_bits = lw.shared_bits_needed;
    let constant = lw.heap_block.map(|n| n.min(u32::MAX as u64) as u32);
    program.heap_block_size = match (heap_block, constant, lw.heap_unknown) {
        (Some(n), _, _) => n,
        (None, Some(n), false) => n,
        (None, Some(n), true) => n.max(DEFAULT_HEAP_BLOCK),
        (None, None, _) => DEFAULT_HEAP_BLOCK,
    };
    Ok(Lowered {
        program,
        taken_apart_at: lw.address_taken_apart_at,
        shared_bits_needed: lw.shared_bits_needed,
    })
}

/// A top-level declaration: typedefs, struct and enum definitions,
/// prototypes and global objects (those of system headers are skipped).
fn top_declaration<'a>(
    lw: &mut Lowerer<'a>,
    d: &'a Node<Declaration>,
    system: bool,
) -> LResult<()> {
    let specs = &d.node.specifiers;
    if types::is_typedef(specs) {
        lw.types.add_typedef(&d.node);
        if !system {
            for init in &d.node.declarators {
                let _ = lw
                    .types
                    .declared_type(specs, Some(&init.node.declarator), init.span);
            }
        }
        return Ok(());
    }
    if system {
        for spec in specs {
            if let DeclarationSpecifier::TypeSpecifier(t) = &spec.node {
                match &t.node {
                    TypeSpecifier::Enum(e) => lw.types.add_enum(&e.node),
                    // a header's struct (`struct timespec`) for the program's
                    // uses; one the frontend cannot represent stays
                    // incomplete, refused where the program uses it
                    TypeSpecifier::Struct(s) => lw.types.add_system_struct(s),
                    _ => {}
                }
            }
        }
        for init in &d.node.declarators {
            if let Some(name) = types::declarator_name(&init.node.declarator.node)
                && types::function_declarator(&init.node.declarator.node).is_some()
            {
                lw.prototypes.insert(name.node.name.clone(), CType::INT);
            }
        }
        return Ok(());
    }
    if d.node.declarators.is_empty() {
        lw.types.declared_type(specs, None, d.span)?;
        return Ok(());
    }
    let constant = types::is_const(specs);
    let thread_local = types::thread_local_specifier(specs).is_some();
    for init in &d.node.declarators {
        let Some(name) = types::declarator_name(&init.node.declarator.node) else {
            continue;
        };
        let declared = lw
            .types
            .declared_type(specs, Some(&init.node.declarator), init.span)?;
        let (ty, atomic) = types::atomic_object(specs, declared);
        match ty {
            CType::Function(ret, _) => {
                lw.prototypes
                    .insert(name.node.name.clone(), ret.without_atomic().0);
            }
            ref ty @ (CType::Int { .. } | CType::Bool)
                if constant
                    && !lw.addressed_names.contains(&name.node.name)
                    && named_constant(lw, &name.node.name, ty, init.node.initializer.as_ref()) => {}
            ty if thread_local => lw.declare_thread_local(
                &name.node.name,
                (ty, atomic),
                init.node.initializer.as_ref(),
                init.span,
            )?,
            ty => lw.declare_global(
                &name.node.name,
                ty,
                init.node.initializer.as_ref(),
                atomic,
                init.span,
            )?,
        }
    }
    Ok(())
}

/// A `const` integer global with a constant initializer (`const int N = 16;`)
/// is a named constant like an enumerator: it cannot change, so it is folded
/// into the code (and into loop and allocation bounds) instead of becoming a
/// shared location. Returns whether `name` was taken as such a constant.
fn named_constant<'a>(
    lw: &mut Lowerer<'a>,
    name: &str,
    ty: &CType,
    initializer: Option<&'a Node<Initializer>>,
) -> bool {
    let Some(Node {
        node: Initializer::Expression(value),
        ..
    }) = initializer
    else {
        return false;
    };
    match lw.types.const_eval(value) {
        Some(v) => {
            let v = match *ty {
                CType::Int { bits, signed } => types::truncate(v, bits, signed),
                _ => (v != 0) as i64,
            };
            lw.types.enum_constants.insert(name.to_string(), v);
            lw.types.constant_types.insert(name.to_string(), ty.clone());
            true
        }
        None => false,
    }
}

/// Parameter types and return type of a function definition.
fn signature<'a>(
    lw: &mut Lowerer<'a>,
    definition: &'a Node<FunctionDefinition>,
) -> LResult<((Vec<CType>, CType), bool)> {
    let declarator = &definition.node.declarator;
    let name = types::declarator_name(&declarator.node)
        .map(|n| n.node.name.clone())
        .unwrap_or_default();
    if declarator
        .node
        .derived
        .iter()
        .any(|d| matches!(d.node, DerivedDeclarator::KRFunction(ref ids) if !ids.is_empty()))
    {
        return lw.refuse(
            declarator.span,
            "a K&R-style function definition",
            Some("write a prototype-style parameter list"),
        );
    }
    let ty = lw.types.declared_type(
        &definition.node.specifiers,
        Some(declarator),
        declarator.span,
    )?;
    let CType::Function(ret, variadic) = ty else {
        return lw.error(
            declarator.span,
            format!("`{name}` is not a function"),
            "here",
        );
    };
    lw.supported_float(&ret, declarator.span)?;
    let mut parameters = Vec::new();
    if let Some(function) = types::function_declarator(&declarator.node) {
        for parameter in &function.node.parameters {
            let p = &parameter.node;
            let ty =
                lw.types
                    .declared_type(&p.specifiers, p.declarator.as_ref(), parameter.span)?;
            if ty == CType::Void && p.declarator.is_none() {
                continue;
            }
            let ty = match ty {
                // a private copy: `_Atomic` changes nothing
                CType::Atomic(inner) => *inner,
                other => other,
            };
            let ty = match ty {
                CType::Array(element, _) => CType::Pointer(element),
                // a parameter of function type is a pointer to the function
                function @ CType::Function(..) => CType::Pointer(Box::new(function)),
                ty => {
                    lw.supported_float(&ty, parameter.span)?;
                    ty
                }
            };
            parameters.push(ty);
        }
    }
    Ok(((parameters, ret.without_atomic().0), variadic))
}

/// The parameter names of a function definition, in order (`""` for an
/// unnamed one).
fn parameter_names(definition: &Node<FunctionDefinition>) -> Vec<String> {
    types::function_declarator(&definition.node.declarator.node)
        .map(|fd| fd.node.parameters.iter())
        .into_iter()
        .flatten()
        .map(|p| {
            p.node
                .declarator
                .as_ref()
                .and_then(|d| types::declarator_name(&d.node))
                .map(|n| n.node.name.clone())
                .unwrap_or_default()
        })
        .collect()
}

/// Notes the integer parameters of function `id` that its body passes as
/// the size of a memory function (`specialisations.rs`); a function used
/// as a value is lowered for every value too.
fn note_size_parameters(
    lw: &mut Lowerer<'_>,
    id: FunctionId,
    definition: &Node<FunctionDefinition>,
    parameter_types: &[CType],
) {
    let names = parameter_names(definition);
    let sizes: Vec<usize> =
        super::analysis::specialisations::size_parameters(&definition.node.statement, &names)
            .into_iter()
            .filter(|&k| matches!(parameter_types.get(k), Some(CType::Int { .. })))
            .collect();
    if sizes.is_empty() {
        return;
    }
    lw.specialisations.size_parameters.insert(id, sizes);
    let name = types::declarator_name(&definition.node.declarator.node)
        .map(|n| n.node.name.clone())
        .unwrap_or_default();
    if lw.function_values.contains(&name) || name == "main" {
        lw.specialisations.need_generic(id, None);
    }
}

/// Notes function `id` as a size function (`size_functions.rs`) when its
/// parameters and result are integers and it computes a number and
/// nothing else.
fn note_size_function(
    lw: &mut Lowerer<'_>,
    id: FunctionId,
    definition: &Node<FunctionDefinition>,
    (parameter_types, return_type): &(Vec<CType>, CType),
) {
    let integers = matches!(return_type, CType::Int { .. })
        && parameter_types
            .iter()
            .all(|ty| matches!(ty, CType::Int { .. }));
    if !integers || lw.specialisations.size_parameters.contains_key(&id) {
        return;
    }
    let is_constant = |name: &str| lw.types.enum_constants.contains_key(name);
    if super::analysis::size_functions::computes_only_a_number(
        &definition.node.statement,
        &parameter_names(definition),
        &is_constant,
    ) {
        lw.specialisations.size_functions.insert(id);
    }
}

/// Lowers every function definition, in order (their ids), then the copies
/// of the functions with size parameters that calls with constants ask
/// for (ids after them), and those functions themselves where a call
/// passes a value known only at run time.
///
/// A function that no execution can call (not in `may_run`: a header's
/// `static inline` functions the program does not use, as concurrencykit's
/// `ck_pr_cas_64_2` in `cmpxchg16b`) and that cannot be lowered is left
/// empty: what it would do cannot change any execution, so what it holds
/// that lazysma refuses is no reason to refuse the program.
fn lower_functions<'a>(
    lw: &mut Lowerer<'a>,
    definitions: &[&'a Node<FunctionDefinition>],
    may_run: &HashSet<String>,
) -> LResult<Vec<Function>> {
    lw.specialisations.next_id = definitions.len();
    let mut functions = Vec::new();
    for (id, definition) in definitions.iter().enumerate() {
        let name = types::declarator_name(&definition.node.declarator.node)
            .map(|n| n.node.name.clone())
            .unwrap_or_default();
        functions.push(match lw.specialisations.size_parameters.contains_key(&id) {
            // lowered below if a call needs it; no call runs this
            true => empty_function(lw, name, definition),
            false => match lower_function(lw, id, definition, &[], SizeUnit::Bytes) {
                Ok(function) => function,
                Err(_) if !may_run.contains(&name) => empty_function(lw, name, definition),
                Err(error) => return Err(error),
            },
        });
    }
    loop {
        if let Some(copy) = lw.specialisations.pending.pop_front() {
            debug_assert_eq!(copy.id, functions.len());
            let definition = definitions[copy.function];
            functions.push(lower_function(
                lw,
                copy.function,
                definition,
                &copy.constants,
                copy.sizes,
            )?);
        } else if let Some((id, call)) = lw.specialisations.next_generic() {
            lw.specialisations.lowering_generic = Some(call);
            let function = lower_function(lw, id, definitions[id], &[], SizeUnit::Bytes);
            lw.specialisations.lowering_generic = None;
            functions[id] = function?;
        } else {
            return Ok(functions);
        }
    }
}

/// A function of no statements in place of `definition`, which no call
/// runs.
fn empty_function<'a>(
    lw: &mut Lowerer<'a>,
    name: String,
    definition: &'a Node<FunctionDefinition>,
) -> Function {
    Function {
        name,
        params: Vec::new(),
        locals: Vec::new(),
        return_type: Ty::Void,
        body: Vec::new(),
        is_atomic: false,
        origin: lw.origin(definition.node.declarator.span),
    }
}

/// Lowers function `id`; with `constants`, its copy in which those
/// parameters (by position) are those constants; with `sizes` scalars,
/// its copy whose `sizeof` counts scalars.
fn lower_function<'a>(
    lw: &mut Lowerer<'a>,
    id: FunctionId,
    definition: &'a Node<FunctionDefinition>,
    constants: &[(usize, i64)],
    sizes: SizeUnit,
) -> LResult<Function> {
    let declarator = &definition.node.declarator;
    let name = types::declarator_name(&declarator.node)
        .map(|n| n.node.name.clone())
        .unwrap_or_default();
    let (parameter_types, return_type) = lw
        .signatures
        .get(&id)
        .cloned()
        .unwrap_or((Vec::new(), CType::INT));
    let origin = lw.origin(lang_c::span::Span::span(
        definition.span.start,
        declarator.span.end,
    ));
    let program_functions = lw.functions.keys().cloned().collect();
    let address_use = AddressUse::of(&definition.node.statement, program_functions);
    let ir_return = lw.types.ir_type(&return_type);
    // `main(argc, argv, envp)` is run without arguments: argc 1, argv
    // { "program", NULL }, envp an empty list (made only when main uses
    // them)
    let parameter_names = parameter_names(definition);
    let used = |k: usize| {
        parameter_names
            .get(k)
            .is_some_and(|name| super::analysis::scan::mentions(name, &definition.node.statement))
    };
    let main_arguments = match name == "main" && (used(0) || used(1) || used(2)) {
        true if used(1) || used(2) => {
            let argv = lw.program_arguments(declarator.span)?;
            let argv = lw.pointer_to(Expr::Const(argv));
            let end = binary(
                BinaryOp::Add,
                argv.clone(),
                Expr::Const(lw.program.address_unit()),
            );
            vec![Expr::Const(1), argv, end]
        }
        true => vec![Expr::Const(1)],
        false => Vec::new(),
    };
    let mut f = FnLowerer::new(lw, name.clone(), address_use, return_type, origin);
    f.in_allocation_size = sizes == SizeUnit::Scalars;
    let mut params = Vec::new();
    let mut declared = types::function_declarator(&declarator.node)
        .map(|fd| fd.node.parameters.iter())
        .into_iter()
        .flatten();
    for (k, ty) in parameter_types.iter().enumerate() {
        let parameter = declared.next();
        let parameter_name = parameter
            .and_then(|p| p.node.declarator.as_ref())
            .and_then(|d| types::declarator_name(&d.node))
            .map(|n| n.node.name.clone())
            .unwrap_or_else(|| format!("__param{k}"));
        let shared =
            f.address_use.address_taken(&parameter_name, ty) || f.lw.types.puns_floating(ty);
        if let Some(&(_, value)) = constants.iter().find(|(position, _)| *position == k) {
            // the argument is passed and unused: the name is the constant
            params.push(f.new_local(&format!("{parameter_name}__arg"), ty.clone(), false));
            f.bind(&parameter_name, Binding::Constant(value, ty.clone()));
        } else if shared && !ty.is_thread_data() {
            let private = f.new_local(&format!("{parameter_name}__arg"), ty.clone(), false);
            if let Some(value) = main_arguments.get(k) {
                f.emit(StmtKind::Assign(Place::Local(private), value.clone()));
            }
            let shared = f.new_local(&parameter_name, ty.clone(), true);
            let span = parameter.map_or(declarator.span, |p| p.span);
            f.store_parameter(shared, private, ty, span)?;
            f.bind(&parameter_name, Binding::Local(shared));
            params.push(private);
        } else {
            let local = f.new_local(&parameter_name, ty.clone(), false);
            if let Some(value) = main_arguments.get(k) {
                f.emit(StmtKind::Assign(Place::Local(local), value.clone()));
            }
            f.bind(&parameter_name, Binding::Local(local));
            params.push(local);
        }
    }
    f.lower_statement(&definition.node.statement)?;
    f.check_no_loop_bound_waits()?;
    let body = f.blocks.pop().unwrap_or_default();
    let copy: Vec<String> = constants
        .iter()
        .map(|(_, v)| match *v < 0 {
            true => format!("m{}", v.unsigned_abs()),
            false => v.to_string(),
        })
        .collect();
    Ok(Function {
        name: match (copy.is_empty(), sizes) {
            (_, SizeUnit::Scalars) => format!("{name}__in_scalars"),
            (true, SizeUnit::Bytes) => name.clone(),
            (false, SizeUnit::Bytes) => format!("{name}__size_{}", copy.join("_")),
        },
        params,
        locals: f.locals,
        return_type: ir_return,
        body,
        is_atomic: name.starts_with("__VERIFIER_atomic_"),
        origin,
    })
}

/// A call that closes a cycle of calls: (caller, callee, origin of the call).
fn find_recursion(functions: &[Function]) -> Option<(FunctionId, FunctionId, OriginId)> {
    let calls: Vec<Vec<(FunctionId, OriginId)>> = functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            collect_calls(&f.body, &mut out);
            out
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; functions.len()];
    for start in 0..functions.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(FunctionId, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if let Some(&(callee, origin)) = calls[f].get(*next) {
                *next += 1;
                match state.get(callee).copied().unwrap_or(2) {
                    0 => {
                        state[callee] = 1;
                        stack.push((callee, 0));
                    }
                    1 => return Some((f, callee, origin)),
                    _ => {}
                }
            } else {
                state[f] = 2;
                stack.pop();
            }
        }
    }
    None
}

/// The diagnostic for recursion, pointing at the call itself when known.
fn recursion_diagnostic(
    lw: &Lowerer<'_>,
    functions: &[Function],
    caller: FunctionId,
    callee: FunctionId,
    origin: OriginId,
) -> Diagnostic {
    let caller_name = &functions[caller].name;
    let callee_name = &functions[callee].name;
    let label = if caller == callee {
        format!("`{caller_name}` calls itself here")
    } else {
        format!("`{caller_name}` calls `{callee_name}`, which leads back to `{caller_name}`")
    };
    let message = "recursion is not supported";
    let help = Some("rewrite the recursion as a loop".to_string());
    if let Some(span) = lw.call_sites.get(&(caller_name.clone(), callee)) {
        return lw
            .source
            .diagnostic(span.start, span.end, message, label, help);
    }
    let o = lw.program.origins.get(origin).cloned().unwrap_or(Origin {
        file: String::new(),
        line: 0,
        column: 0,
        text: String::new(),
    });
    Diagnostic {
        message: message.into(),
        file: PathBuf::from(o.file),
        line: o.line,
        column: o.column,
        length: o.text.chars().count().max(1) as u32,
        label,
        help,
        severity: Severity::Error,
    }
}

fn collect_calls(block: &Block, out: &mut Vec<(FunctionId, OriginId)>) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Call { function, .. } => out.push((*function, stmt.origin)),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                collect_calls(then_branch, out);
                collect_calls(else_branch, out);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                collect_calls(prelude, out);
                collect_calls(body, out);
                collect_calls(latch, out);
            }
            _ => {}
        }
    }
}
