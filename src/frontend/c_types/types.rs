//! C types as the frontend sees them and their resolution from lang-c
//! specifiers and declarators, with typedefs, `typeof` and struct tags.
//! Struct definitions are read in `struct_types.rs`, sizes and offsets
//! computed in `layout.rs` and constant expressions in `constants.rs`.

use crate::diagnostics::Diagnostic;
use crate::frontend::source::source_map::SourceMap;
pub use crate::ir::truncate;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{HashMap, HashSet};

/// Default length of a variable-length array of `pthread_t`.
pub const DEFAULT_THREAD_ARRAY_BOUND: u64 = 8;

/// Index into [`TypeEnv::structs`]; equal to the IR struct id.
pub type StructId = usize;

/// A C type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CType {
    Void,
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    Pointer(Box<CType>),
    Array(Box<CType>, u64),
    Struct(StructId),
    /// `pthread_t`.
    ThreadHandle,
    /// `pthread_mutex_t`: one location.
    Mutex,
    /// Types that are accepted but carry no modelled value
    /// (`pthread_attr_t`, `pthread_mutexattr_t`, `FILE`).
    Opaque(String),
    /// A function type with its return type and whether it is variadic.
    Function(Box<CType>, bool),
    /// `float`, `double`, `long double`, with their size in bytes:
    /// refused wherever a value is needed.
    Float(u8),
    /// A bit-field member, as the type of its lvalue: bits of a storage
    /// unit of the struct. Its values have the declared type.
    BitField(Box<BitField>),
    /// An `_Atomic` scalar: its stores are `seq_cst` and its `++`, `--` and
    /// compound assignments atomic read-modify-writes. Only ever the target
    /// of a pointer: objects, struct fields and values carry the type
    /// without it ([`CType::without_atomic`]), the atomicity in their
    /// lvalues.
    Atomic(Box<CType>),
}

impl CType {
    /// `char` (signed, as on x86), the element of a string literal.
    pub const CHAR: CType = CType::Int {
        bits: 8,
        signed: true,
    };
    /// `size_t`, the type of `sizeof`.
    pub const SIZE: CType = CType::Int {
        bits: 64,
        signed: false,
    };
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    pub const LONG: CType = CType::Int {
        bits: 64,
        signed: true,
    };

    /// The bits of a `float` (32) or a `double` (64); `None` for the
    /// floating types lazysma does not model (`long double`, complex
    /// types, other TS 18661 formats) and for every other type.
    pub fn float_bits(&self) -> Option<u8> {
        match self {
            CType::Float(4) => Some(32),
            CType::Float(8) => Some(64),
            _ => None,
        }
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Pointer(_))
    }

    /// Whether a value of this type fits one scalar location.
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            CType::Int { .. }
                | CType::Bool
                | CType::Pointer(_)
                | CType::Mutex
                | CType::ThreadHandle
                | CType::Float(_)
        )
    }

    /// The pointee of a pointer or the element of an array (without
    /// `_Atomic`: [`CType::target_is_atomic`] tells).
    pub fn target(&self) -> Option<&CType> {
        match self {
            CType::Pointer(t) | CType::Array(t, _) => match &**t {
                CType::Atomic(inner) => Some(inner),
                target => Some(target),
            },
            _ => None,
        }
    }

    /// Whether the pointee or element is `_Atomic`.
    pub fn target_is_atomic(&self) -> bool {
        matches!(self, CType::Pointer(t) | CType::Array(t, _) if matches!(**t, CType::Atomic(_)))
    }

    /// The type of an object or value of this declared type, and whether
    /// it (or each element of the array) is `_Atomic`.
    pub fn without_atomic(self) -> (CType, bool) {
        match self {
            CType::Atomic(inner) => (inner.without_atomic().0, true),
            CType::Array(element, length) => {
                let (element, atomic) = element.without_atomic();
                (CType::Array(Box::new(element), length), atomic)
            }
            other => (other, false),
        }
    }

    /// Whether the type is `pthread_t` or an array of them.
    pub fn is_thread_handle(&self) -> bool {
        match self {
            CType::ThreadHandle => true,
            CType::Array(t, _) => t.is_thread_handle(),
            _ => false,
        }
    }

    /// Whether the type contains `pthread_t` (such objects are not shared memory).
    pub fn is_thread_data(&self) -> bool {
        match self {
            CType::ThreadHandle | CType::Opaque(_) => true,
            CType::Array(t, _) => t.is_thread_data(),
            _ => false,
        }
    }
}

/// How the unit uses struct members, by name (syntactically: a name
/// stands for every struct's member of that name).
#[derive(Debug, Default, Clone)]
pub struct MemberUses {
    /// The names that some expression uses as a struct member: `x.m`,
    /// `p->m`, a designator `.m = ...` and `offsetof(T, m.n)`. A member
    /// whose name is not among them is never read nor written by name,
    /// which is what lets [`TypeEnv`] leave padding
    /// such as `char pad[56]` out of shared memory.
    pub named: HashSet<String>,
    /// The members whose address the program takes (`&x.m`, `&p->m`,
    /// `&x.m[i]`, each member of the chain), except as the object of an
    /// atomic or synchronisation call (`scan::accesses_exactly`): a pointer to
    /// one may reach its struct's other members, named or not.
    pub addressed: HashSet<String>,
    /// The members used as a value (not as the base of `[]`, nor as an
    /// operand of `&` or `sizeof`): an array among them decays to a
    /// pointer that may reach its struct's other members.
    pub as_values: HashSet<String>,
}

impl MemberUses {
    /// Whether a pointer the program makes may reach, from the member
    /// `name` of type `ty`, its struct's other members: its address is
    /// taken, or it is an array used as a value.
    pub fn reaches_beyond(&self, name: &str, ty: &CType) -> bool {
        self.addressed.contains(name)
            || (self.as_values.contains(name) && matches!(ty, CType::Array(..)))
    }
}

/// A struct (or union, which is refused when used) and its fields.
#[derive(Debug, Clone)]
pub struct StructInfo {
    pub name: String,
    pub is_union: bool,
    /// The fields that shared memory holds, in order; `None` until the
    /// definition is seen. Those are the declared fields
    /// ([`Self::declared`]) without the [`Self::padding`].
    pub fields: Option<Vec<(String, CType)>>,
    /// Every field as declared, which C's layout in bytes (`sizeof`,
    /// `offsetof`, `_Alignof`) counts.
    pub declared: Vec<(String, CType)>,
    /// The members of integers or arrays of integers that no expression of
    /// the program names (`char pad[56]` that keeps a cache line to one
    /// field), in a struct none of whose members has its address taken
    /// (but by an atomic or synchronisation call) or, an array, decays to
    /// a pointer. Nothing reads their values, so shared memory leaves them
    /// out: a location of each of their scalars would only make every
    /// access at a computed address choose among more locations. A braced
    /// initialiser's value for one is dropped; `sizeof` still counts them.
    pub padding: Vec<String>,
    /// The fields declared `_Atomic` (their types in `fields` without it).
    pub atomic_fields: HashSet<String>,
    /// The bit-field members by name: `fields` holds their storage units.
    pub bit_fields: HashMap<String, BitField>,
    /// A union of scalars of one size is its first member, and its other
    /// members are that scalar seen as their types (`union { void *p;
    /// uintptr_t bits; }`): those by name.
    pub aliases: HashMap<String, CType>,
    /// The named members in declaration order, as a braced initialiser
    /// lists them: the fields, or with bit-fields, those and the bit-field
    /// members instead of their storage units.
    pub members: Vec<String>,
    /// The members that anonymous struct members gave it
    /// ([`TypeEnv::splice_anonymous_member`]).
    pub anonymous_members: HashSet<String>,
    /// The members reached through an anonymous member kept whole (an
    /// anonymous union, or an anonymous struct inside a union): each name
    /// and the anonymous member's field that holds it
    /// ([`TypeEnv::anonymous_path`]).
    pub anonymous_paths: HashMap<String, String>,
    /// The alignments in bytes that members ask for (`_Alignas(64)`,
    /// `__attribute__((aligned(64)))`) above their types' own, by name.
    pub member_alignments: HashMap<String, u64>,
    /// The alignment in bytes the struct's attributes ask for
    /// (`struct s { ... } __attribute__((aligned(64)))`), 1 if none.
    pub asked_alignment: u64,
    /// `__attribute__((packed))`: no padding between members, which are
    /// aligned only as they ask.
    pub packed: bool,
    /// Where its definition starts in the preprocessed text (for a
    /// refusal that names it).
    pub defined_at: Option<usize>,
}

/// Where a bit-field member lies: bits `offset .. offset + width` of the
/// storage unit `unit`, an unsigned field of the struct that holds a run
/// of adjacent bit-fields (one memory location, as in C11: storing one
/// bit-field reads and writes the whole unit, so threads that store
/// adjacent bit-fields race).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitField {
    pub unit: String,
    /// The unit's type: `unsigned int`, or `unsigned long` for a run
    /// wider than 32 bits.
    pub unit_type: CType,
    pub offset: u8,
    pub width: u8,
    /// The declared type, which reads give.
    pub ty: CType,
}

/// A typedef as written: its specifiers and declarator.
type TypedefSource<'a> = (&'a [Node<DeclarationSpecifier>], &'a Node<Declarator>);

/// What an offset counts: C's bytes, or the scalars (locations) that
/// memory is made of here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Scalars,
}

/// Names, tags and constants in scope while resolving types.
pub struct TypeEnv<'a> {
    pub source: &'a SourceMap,
    pub(in crate::frontend) typedefs: HashMap<String, TypedefSource<'a>>,
    pub(in crate::frontend) resolved: HashMap<String, CType>,
    pub structs: Vec<StructInfo>,
    pub(in crate::frontend) tags: HashMap<String, StructId>,
    pub enum_constants: HashMap<String, i64>,
    /// The types of the `const` globals folded into named constants
    /// ([`Self::enum_constants`]; an enumerator is an `int`).
    pub constant_types: HashMap<String, CType>,
    /// Types of global objects, for `sizeof` in constant expressions.
    pub object_types: HashMap<String, CType>,
    /// Length given to variable-length arrays of thread handles: threads
    /// are created in loops, which run at most this many times.
    pub thread_array_bound: u64,
    /// The struct definitions of system headers by tag (`timespec`), read
    /// when the program uses the struct.
    pub(in crate::frontend) system_structs: HashMap<String, &'a Node<StructType>>,
    /// The types of the expressions of `typeof(expression)` specifiers in
    /// functions, by the specifier's span: the function's lowering knows
    /// its names and computes them before it resolves the type.
    pub typeof_expressions: HashMap<(usize, usize), CType>,
    /// How the program uses struct members ([`MemberUses`]), or `None`
    /// to model every member. A struct's integer members no expression
    /// names are padding, unless a pointer the program makes may reach
    /// them: see [`StructInfo::padding`].
    ///
    pub member_uses: Option<MemberUses>,
}

pub type TResult<T> = Result<T, Box<Diagnostic>>;

/// A type specifier or qualifier from either kind of specifier list.
pub(in crate::frontend) enum Spec<'a> {
    Type(&'a Node<TypeSpecifier>),
    /// `_Atomic` as a qualifier.
    Atomic,
    Qualifier,
    /// GNU attributes (`__attribute__((aligned(64)))`).
    Attributes(&'a [Node<Extension>]),
    Other,
}

fn decl_specs(specs: &[Node<DeclarationSpecifier>]) -> Vec<Spec<'_>> {
    specs
        .iter()
        .map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => Spec::Type(t),
            DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Atomic => {
                Spec::Atomic
            }
            DeclarationSpecifier::TypeQualifier(_) => Spec::Qualifier,
            DeclarationSpecifier::Extension(extensions) => Spec::Attributes(extensions),
            _ => Spec::Other,
        })
        .collect()
}

pub(in crate::frontend) fn qual_specs(specs: &[Node<SpecifierQualifier>]) -> Vec<Spec<'_>> {
    specs
        .iter()
        .map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => Spec::Type(t),
            SpecifierQualifier::TypeQualifier(q) if q.node == TypeQualifier::Atomic => Spec::Atomic,
            SpecifierQualifier::TypeQualifier(_) => Spec::Qualifier,
            SpecifierQualifier::Extension(extensions) => Spec::Attributes(extensions),
        })
        .collect()
}

/// The name a declarator declares, if any.
pub fn declarator_name(declarator: &Declarator) -> Option<&Node<Identifier>> {
    match &declarator.kind.node {
        DeclaratorKind::Identifier(id) => Some(id),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// The function declarator (parameters) of a function definition's declarator.
pub fn function_declarator(declarator: &Declarator) -> Option<&Node<FunctionDeclarator>> {
    declarator.derived.iter().find_map(|d| match &d.node {
        DerivedDeclarator::Function(f) => Some(f),
        _ => None,
    })
}

/// The `_Thread_local` specifier among declaration specifiers (`__thread`
/// is preprocessed into it), if any.
pub fn thread_local_specifier(specs: &[Node<DeclarationSpecifier>]) -> Option<Span> {
    specs.iter().find_map(|s| match &s.node {
        DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::ThreadLocal => {
            Some(s.span)
        }
        _ => None,
    })
}

/// Whether declaration specifiers contain `typedef`.
pub fn is_typedef(specs: &[Node<DeclarationSpecifier>]) -> bool {
    has_storage(specs, |s| matches!(s, StorageClassSpecifier::Typedef))
}

pub fn has_storage(
    specs: &[Node<DeclarationSpecifier>],
    f: impl Fn(&StorageClassSpecifier) -> bool,
) -> bool {
    specs
        .iter()
        .any(|s| matches!(&s.node, DeclarationSpecifier::StorageClass(c) if f(&c.node)))
}

/// Whether a specifier list contains the `_Atomic` qualifier or specifier.
pub fn is_atomic(specs: &[Node<DeclarationSpecifier>]) -> bool {
    specs.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Atomic)
            || matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Atomic(_)))
    })
}

/// The type of an object that `specs` and a declarator declare as
/// `declared`, and whether the object is `_Atomic`: its type says so for a
/// scalar or an array of scalars (`_Atomic int *p` is a plain pointer to
/// atomic ints), its specifiers for a struct or an array of structs.
pub fn atomic_object(specs: &[Node<DeclarationSpecifier>], declared: CType) -> (CType, bool) {
    let (ty, atomic) = declared.without_atomic();
    let mut element = &ty;
    while let CType::Array(inner, _) = element {
        element = inner;
    }
    let atomic_struct = matches!(element, CType::Struct(_)) && is_atomic(specs);
    (ty, atomic || atomic_struct)
}

/// Whether the declaration specifiers make the declared object `const`.
pub fn is_const(specs: &[Node<DeclarationSpecifier>]) -> bool {
    specs.iter().any(
        |s| matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Const),
    )
}

impl<'a> TypeEnv<'a> {
    pub fn new(source: &'a SourceMap) -> Self {
        TypeEnv {
            source,
            typedefs: HashMap::new(),
            resolved: HashMap::new(),
            structs: Vec::new(),
            tags: HashMap::new(),
            enum_constants: HashMap::new(),
            constant_types: HashMap::new(),
            object_types: HashMap::new(),
            thread_array_bound: DEFAULT_THREAD_ARRAY_BOUND,
            system_structs: HashMap::new(),
            typeof_expressions: HashMap::new(),
            member_uses: None,
        }
    }

    pub(in crate::frontend) fn refuse<T>(
        &self,
        span: lang_c::span::Span,
        what: &str,
        help: Option<&str>,
    ) -> TResult<T> {
        Err(Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("{what} is not supported"),
            what.to_string(),
            help.map(str::to_string),
        )))
    }

    /// Records the typedefs of a declaration (resolved lazily on use).
    pub fn add_typedef(&mut self, declaration: &'a Declaration) {
        for init in &declaration.declarators {
            if let Some(name) = declarator_name(&init.node.declarator.node) {
                self.typedefs.insert(
                    name.node.name.clone(),
                    (&declaration.specifiers, &init.node.declarator),
                );
                self.resolved.remove(&name.node.name);
            }
        }
    }

    /// Type of a declaration's specifiers with one declarator applied.
    pub fn declared_type(
        &mut self,
        specs: &'a [Node<DeclarationSpecifier>],
        declarator: Option<&'a Node<Declarator>>,
        span: lang_c::span::Span,
    ) -> TResult<CType> {
        let base = self.base_type(&decl_specs(specs), span)?;
        match declarator {
            Some(d) => self.apply_declarator(base, d),
            None => Ok(base),
        }
    }

    /// Type of a type name (`sizeof(T)`, casts).
    pub fn type_name(&mut self, name: &'a Node<TypeName>) -> TResult<CType> {
        let base = self.base_type(&qual_specs(&name.node.specifiers), name.span)?;
        match &name.node.declarator {
            Some(d) => self.apply_declarator(base, d),
            None => Ok(base),
        }
    }

    /// Applies pointer, array and function derivations.
    pub fn apply_declarator(
        &mut self,
        base: CType,
        declarator: &'a Node<Declarator>,
    ) -> TResult<CType> {
        let mut ty = base;
        for derived in &declarator.node.derived {
            if let DerivedDeclarator::Pointer(_) = derived.node {
                ty = CType::Pointer(Box::new(ty));
            }
        }
        for derived in declarator.node.derived.iter().rev() {
            match &derived.node {
                DerivedDeclarator::Pointer(_) => {}
                DerivedDeclarator::Array(array) => {
                    let length = match &array.node.size {
                        ArraySize::Unknown => 0,
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.const_eval(e) {
                                Some(n) if n >= 0 => n as u64,
                                None if ty == CType::ThreadHandle => self.thread_array_bound,
                                _ => {
                                    return self.refuse(
                                        e.span,
                                        "a variable-length array (its size is not a constant)",
                                        Some("give the array a constant size"),
                                    );
                                }
                            }
                        }
                        ArraySize::VariableUnknown => {
                            return self.refuse(derived.span, "a variable-length array", None);
                        }
                    };
                    ty = CType::Array(Box::new(ty), length);
                }
                DerivedDeclarator::Function(f) => {
                    let variadic = matches!(f.node.ellipsis, Ellipsis::Some);
                    ty = CType::Function(Box::new(ty), variadic);
                }
                DerivedDeclarator::KRFunction(_) => ty = CType::Function(Box::new(ty), false),
                DerivedDeclarator::Block(_) => {
                    return self.refuse(derived.span, "a block pointer", None);
                }
            }
        }
        if let DeclaratorKind::Declarator(inner) = &declarator.node.kind.node {
            ty = self.apply_declarator(ty, inner)?;
        }
        Ok(ty)
    }

    pub(in crate::frontend) fn base_type(
        &mut self,
        specs: &[Spec<'a>],
        span: lang_c::span::Span,
    ) -> TResult<CType> {
        let (mut longs, mut unsigned, mut signed) = (0, false, false);
        let mut base: Option<CType> = None;
        let (mut short, mut char, mut complex) = (false, false, false);
        let mut atomic = false;
        // the struct this list defines, which attributes after it describe
        let mut defined = None;
        for spec in specs {
            match spec {
                Spec::Atomic => atomic = true,
                Spec::Attributes(extensions) => {
                    if let Some(id) = defined {
                        self.describe_struct(id, extensions)?;
                    }
                }
                _ => {}
            }
            let Spec::Type(t) = spec else { continue };
            match &t.node {
                TypeSpecifier::Void => base = Some(CType::Void),
                TypeSpecifier::Char => char = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int => {}
                TypeSpecifier::Long => longs += 1,
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => base = Some(CType::Bool),
                TypeSpecifier::Float => base = Some(CType::Float(4)),
                TypeSpecifier::Double => base = Some(CType::Float(8)),
                TypeSpecifier::TS18661Float(f) => base = Some(CType::Float(float_bytes(f))),
                TypeSpecifier::Complex => complex = true,
                TypeSpecifier::Atomic(name) => {
                    atomic = true;
                    base = Some(self.type_name(name)?.without_atomic().0);
                }
                TypeSpecifier::Struct(s) => {
                    let ty = self.struct_type(s)?;
                    if let (CType::Struct(id), Some(_)) = (&ty, &s.node.declarations) {
                        defined = Some(*id);
                    }
                    base = Some(ty);
                }
                TypeSpecifier::Enum(e) => {
                    self.add_enum(&e.node);
                    base = Some(CType::INT);
                }
                TypeSpecifier::TypedefName(name) => base = Some(self.typedef_type(name)?),
                TypeSpecifier::TypeOf(of) => base = Some(self.typeof_type(of)?),
            }
        }
        let _ = signed;
        // `char` is signed here (as on x86), `unsigned char` is not; a
        // typedef of an 8-bit type (`uint8_t`) keeps its own signedness
        let ty = match base {
            None if char => CType::Int {
                bits: 8,
                signed: !unsigned,
            },
            Some(CType::Float(bytes)) if complex => {
                CType::Float(2 * if longs > 0 { 16 } else { bytes })
            }
            Some(CType::Float(_)) if longs > 0 => CType::Float(16),
            Some(other) => other,
            None if short => CType::Int {
                bits: 16,
                signed: !unsigned,
            },
            None if longs > 0 => CType::Int {
                bits: 64,
                signed: !unsigned,
            },
            None => CType::Int {
                bits: 32,
                signed: !unsigned,
            },
        };
        let _ = span;
        // `_Atomic` structs are atomic objects (`is_atomic`), not a type here
        Ok(if atomic && ty.is_scalar() {
            CType::Atomic(Box::new(ty))
        } else {
            ty
        })
    }

    /// The type `typeof` names: a type name's, or its expression's, which
    /// the function being lowered computed (`typeof_expressions`) or, at
    /// file scope, a global object's.
    fn typeof_type(&mut self, of: &'a Node<TypeOf>) -> TResult<CType> {
        let expression = match &of.node {
            TypeOf::Type(name) => return self.type_name(name),
            TypeOf::Expression(expression) => expression,
        };
        if let Some(ty) = self.typeof_expressions.get(&(of.span.start, of.span.end)) {
            return Ok(ty.clone());
        }
        if let Expression::Identifier(id) = &expression.node
            && let Some(ty) = self.object_types.get(&id.node.name)
        {
            return Ok(ty.clone());
        }
        self.refuse(
            of.span,
            "`typeof` of this expression",
            Some("at file scope `typeof` takes a type or the name of a global variable"),
        )
    }

    fn typedef_type(&mut self, name: &'a Node<Identifier>) -> TResult<CType> {
        let id = name.node.name.as_str();
        match id {
            "pthread_t" => return Ok(CType::ThreadHandle),
            "pthread_mutex_t" | "pthread_spinlock_t" => return Ok(CType::Mutex),
            // A semaphore is its count, an int of shared memory (see
            // `FnLowerer::semaphore`).
            "sem_t" => return Ok(CType::INT),
            // A condition variable is the count of the signals sent to it
            // (see `FnLowerer::condition_wait`).
            "pthread_cond_t" => return Ok(CType::INT),
            "pthread_attr_t" | "pthread_mutexattr_t" | "FILE" | "pthread_condattr_t" => {
                return Ok(CType::Opaque(id.to_string()));
            }
            // A read-write lock is its state, an int of shared memory (see
            // `FnLowerer::read_write_lock`).
            "pthread_rwlock_t" => return Ok(CType::INT),
            "pthread_rwlockattr_t" => return Ok(CType::Opaque(id.to_string())),
            // A barrier is its thread count and its arrivals so far, two
            // ints of shared memory (see `FnLowerer::barrier`).
            "pthread_barrier_t" => return Ok(CType::Array(Box::new(CType::INT), 2)),
            "pthread_barrierattr_t" => return Ok(CType::Opaque(id.to_string())),
            // The state of a `pthread_once` (see `FnLowerer::once`).
            "pthread_once_t" => return Ok(CType::INT),
            // a key's number (see `FnLowerer::thread_specific`)
            "pthread_key_t" => return Ok(CType::UINT),
            // a variadic function's argument list, which only the ignored
            // `va_start`, `va_end` and `vprintf`-like calls use (`va_arg`
            // is refused)
            "va_list" | "__builtin_va_list" | "__gnuc_va_list" => {
                return Ok(CType::Opaque(id.to_string()));
            }
            "jmp_buf" | "sigjmp_buf" => return self.refuse(name.span, "setjmp/longjmp", None),
            _ => {}
        }
        if let Some(ty) = self.resolved.get(id) {
            return Ok(ty.clone());
        }
        let Some(&(specs, declarator)) = self.typedefs.get(id) else {
            return self.refuse(name.span, &format!("the unknown type `{id}`"), None);
        };
        // Guard against self-reference while resolving.
        self.resolved.insert(id.to_string(), CType::INT);
        let result = self.declared_type(specs, Some(declarator), name.span);
        self.resolved.remove(id);
        let ty = result?;
        self.resolved.insert(id.to_string(), ty.clone());
        Ok(ty)
    }
}

/// The size in bytes of a TS 18661 floating type (`_Float32`, `_Float64x`).
fn float_bytes(float: &lang_c::ast::TS18661FloatType) -> u8 {
    use lang_c::ast::TS18661FloatFormat;
    let bits = match float.format {
        TS18661FloatFormat::BinaryInterchange | TS18661FloatFormat::DecimalInterchange => {
            float.width
        }
        // the extended formats are at least one step wider
        TS18661FloatFormat::BinaryExtended | TS18661FloatFormat::DecimalExtended => 2 * float.width,
    };
    u8::try_from(bits.div_ceil(8)).unwrap_or(16).min(16)
}
