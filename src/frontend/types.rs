//! C types as the frontend sees them (sizes counted in scalars, one scalar
//! per shared location) and their resolution from lang-c specifiers and
//! declarators, with typedefs, struct tags and enum constants.

use super::source_map::SourceMap;
use crate::diagnostics::Diagnostic;
pub use crate::ir::truncate;
use crate::ir::{StructDef, Ty};
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

    /// Whether the type contains `pthread_t` (such objects are not shared memory).
    pub fn is_thread_data(&self) -> bool {
        match self {
            CType::ThreadHandle | CType::Opaque(_) => true,
            CType::Array(t, _) => t.is_thread_data(),
            _ => false,
        }
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
    /// field). Nothing reads their values, so shared memory leaves them
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
}

/// What GNU attributes say of a member's or a struct's layout.
#[derive(Default)]
struct LayoutAttributes {
    /// The alignment in bytes asked for, if any.
    alignment: Option<u64>,
    /// `packed`.
    packed: bool,
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

/// The runs of adjacent bit-fields of a struct being defined: each run
/// is one storage unit, a field of the struct named by its members
/// (`{locked,waiters}`).
#[derive(Default)]
struct BitFieldRuns {
    /// The open run: its unit's index in the fields, its width in bits,
    /// the bits used, and its members' names.
    open: Option<(usize, u32, u32, Vec<String>)>,
    /// Every member placed: (name, unit index, offset, width, declared type).
    members: Vec<(String, usize, u32, u32, CType)>,
}

impl BitFieldRuns {
    /// Places a bit-field of `width` bits (a member `name`, or padding).
    fn place(
        &mut self,
        name: Option<String>,
        width: u32,
        ty: CType,
        fields: &mut Vec<(String, CType)>,
    ) {
        let unit_bits = if width > 32 || matches!(ty, CType::Int { bits: 64, .. }) {
            64
        } else {
            32
        };
        let fits = matches!(&self.open, Some((_, bits, used, _)) if used + width <= *bits && unit_bits <= *bits);
        if !fits {
            self.close(fields);
            let unit_type = CType::Int {
                bits: unit_bits as u8,
                signed: false,
            };
            fields.push((String::new(), unit_type));
            self.open = Some((fields.len() - 1, unit_bits, 0, Vec::new()));
        }
        let Some((unit, _, used, names)) = &mut self.open else {
            return;
        };
        if let Some(name) = name {
            self.members.push((name.clone(), *unit, *used, width, ty));
            names.push(name);
        }
        *used += width;
    }

    /// Ends the open run: its unit gets its members' names.
    fn close(&mut self, fields: &mut [(String, CType)]) {
        if let Some((unit, _, _, names)) = self.open.take() {
            fields[unit].0 = format!("{{{}}}", names.join(","));
        }
    }

    /// The members by name, each in its named unit.
    fn finish(self, fields: &[(String, CType)]) -> HashMap<String, BitField> {
        self.members
            .into_iter()
            .map(|(name, unit, offset, width, ty)| {
                let (unit, unit_type) = fields[unit].clone();
                (
                    name,
                    BitField {
                        unit,
                        unit_type,
                        offset: offset as u8,
                        width: width as u8,
                        ty,
                    },
                )
            })
            .collect()
    }
}

/// What the anonymous struct members of a struct being defined bring
/// besides their fields: their bit-fields, and their tail padding.
#[derive(Default)]
struct Spliced {
    bit_fields: HashMap<String, BitField>,
    tails: Vec<String>,
}

/// A typedef as written: its specifiers and declarator.
type TypedefSource<'a> = (&'a [Node<DeclarationSpecifier>], &'a Node<Declarator>);

/// Whether `ty` is an integer or an array of integers: data that can be
/// padding ([`StructInfo::padding`]).
fn is_integer_data(ty: &CType) -> bool {
    match ty {
        CType::Int { .. } => true,
        CType::Array(element, _) => is_integer_data(element),
        _ => false,
    }
}

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
    typedefs: HashMap<String, TypedefSource<'a>>,
    resolved: HashMap<String, CType>,
    pub structs: Vec<StructInfo>,
    tags: HashMap<String, StructId>,
    pub enum_constants: HashMap<String, i64>,
    /// Types of global objects, for `sizeof` in constant expressions.
    pub object_types: HashMap<String, CType>,
    /// Length given to variable-length arrays of thread handles: threads
    /// are created in loops, which run at most this many times.
    pub thread_array_bound: u64,
    /// The struct definitions of system headers by tag (`timespec`), read
    /// when the program uses the struct.
    system_structs: HashMap<String, &'a Node<StructType>>,
    /// The types of the expressions of `typeof(expression)` specifiers in
    /// functions, by the specifier's span: the function's lowering knows
    /// its names and computes them before it resolves the type.
    pub typeof_expressions: HashMap<(usize, usize), CType>,
    /// The names some expression uses as a member ([`member_names`]), or
    /// `None` to model every member. A struct's integer members outside
    /// it are padding: see [`StructInfo::padding`].
    ///
    /// [`member_names`]: super::scan::member_names
    pub named_members: Option<HashSet<String>>,
}

pub type TResult<T> = Result<T, Box<Diagnostic>>;

/// A type specifier or qualifier from either kind of specifier list.
enum Spec<'a> {
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

fn qual_specs(specs: &[Node<SpecifierQualifier>]) -> Vec<Spec<'_>> {
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
            object_types: HashMap::new(),
            thread_array_bound: DEFAULT_THREAD_ARRAY_BOUND,
            system_structs: HashMap::new(),
            typeof_expressions: HashMap::new(),
            named_members: None,
        }
    }

    fn refuse<T>(&self, span: lang_c::span::Span, what: &str, help: Option<&str>) -> TResult<T> {
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

    fn base_type(&mut self, specs: &[Spec<'a>], span: lang_c::span::Span) -> TResult<CType> {
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
            // A condition variable has no state of its own here: a wait may
            // always wake up spuriously (see `pthread_cond_wait`).
            "pthread_attr_t"
            | "pthread_mutexattr_t"
            | "FILE"
            | "pthread_condattr_t"
            | "pthread_cond_t" => {
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

    /// Keeps a system header's struct definition for the program's uses of
    /// its tag.
    pub fn add_system_struct(&mut self, s: &'a Node<StructType>) {
        if let (Some(tag), Some(_)) = (&s.node.identifier, &s.node.declarations) {
            self.system_structs.insert(tag.node.name.clone(), s);
        }
    }

    fn struct_type(&mut self, s: &'a Node<StructType>) -> TResult<CType> {
        let is_union = matches!(s.node.kind.node, StructKind::Union);
        let tag = s.node.identifier.as_ref().map(|i| i.node.name.clone());
        // `struct timespec` of <time.h>: the header's definition, at the
        // program's first use
        if s.node.declarations.is_none()
            && let Some(tag) = &tag
            && self
                .tags
                .get(tag)
                .is_none_or(|&id| self.structs[id].fields.is_none())
            && let Some(definition) = self.system_structs.remove(tag)
        {
            return self.struct_type(definition);
        }
        let id = match (&tag, &s.node.declarations) {
            (Some(tag), None) => match self.tags.get(tag) {
                Some(&id) => id,
                None => self.new_struct(Some(tag.clone()), is_union),
            },
            (Some(tag), Some(_)) => match self.tags.get(tag) {
                Some(&id) if self.structs[id].fields.is_none() => id,
                _ => self.new_struct(Some(tag.clone()), is_union),
            },
            (None, _) => self.new_struct(None, is_union),
        };
        if let Some(declarations) = &s.node.declarations
            && self.structs[id].fields.is_none()
        {
            let mut fields = Vec::new();
            let mut members = Vec::new();
            let mut bits = BitFieldRuns::default();
            let mut spliced = Spliced::default();
            for declaration in declarations {
                let StructDeclaration::Field(field) = &declaration.node else {
                    continue;
                };
                let base = self.base_type(&qual_specs(&field.node.specifiers), field.span)?;
                if field.node.declarators.is_empty()
                    && let CType::Struct(inner) = base
                    && self.is_untagged(inner)
                {
                    bits.close(&mut fields);
                    if is_union || self.is_union_like(inner) {
                        let whole = self.keep_anonymous_member(id, inner);
                        members.push(whole.clone());
                        fields.push((whole, base));
                        continue;
                    }
                    self.splice_anonymous_member(
                        id,
                        inner,
                        field.span,
                        &mut fields,
                        &mut members,
                        &mut spliced,
                    )?;
                    continue;
                }
                for d in &field.node.declarators {
                    if let Some(width) = &d.node.bit_width {
                        if let Some(name) =
                            self.bit_field(&base, d, width, &mut fields, &mut bits)?
                        {
                            members.push(name);
                        }
                        continue;
                    }
                    bits.close(&mut fields);
                    let Some(declarator) = &d.node.declarator else {
                        continue;
                    };
                    let (ty, atomic) = self
                        .apply_declarator(base.clone(), declarator)?
                        .without_atomic();
                    let name = declarator_name(&declarator.node)
                        .map(|n| n.node.name.clone())
                        .unwrap_or_default();
                    if atomic {
                        self.structs[id].atomic_fields.insert(name.clone());
                    }
                    let extensions = field.node.specifiers.iter().filter_map(|s| match &s.node {
                        SpecifierQualifier::Extension(extensions) => Some(extensions),
                        _ => None,
                    });
                    let asked = extensions.flatten().chain(&declarator.node.extensions);
                    if let Some(alignment) = self.attributes(asked)?.alignment {
                        self.structs[id]
                            .member_alignments
                            .insert(name.clone(), alignment);
                    }
                    members.push(name.clone());
                    fields.push((name, ty));
                }
            }
            bits.close(&mut fields);
            let mut bit_fields = bits.finish(&fields);
            bit_fields.extend(spliced.bit_fields);
            self.structs[id].bit_fields = bit_fields;
            if is_union {
                self.lead_with_data(&mut fields, &mut members);
            }
            if is_union && let Some(aliases) = self.scalar_union(&fields) {
                // one scalar under several names
                self.structs[id].is_union = false;
                self.structs[id].aliases = aliases;
                fields.truncate(1);
                members.truncate(1);
            }
            self.structs[id].padding = self.padding(id, &fields, &members);
            if self.named_members.is_some() {
                self.structs[id].padding.extend(spliced.tails);
            }
            let padding = &self.structs[id].padding;
            let modelled = fields
                .iter()
                .filter(|(name, _)| !padding.contains(name))
                .cloned()
                .collect();
            self.structs[id].members = members;
            self.structs[id].declared = fields;
            self.structs[id].fields = Some(modelled);
        }
        Ok(CType::Struct(id))
    }

    /// Whether the member `name` of struct `id` came from an anonymous
    /// struct member: a positional initialiser cannot reach it, as its
    /// braces would group the anonymous struct's members.
    pub fn is_anonymous_member(&self, id: StructId, name: &str) -> bool {
        self.structs
            .get(id)
            .is_some_and(|info| info.anonymous_members.contains(name))
    }

    /// Whether struct `id` was defined without a tag.
    fn is_untagged(&self, id: StructId) -> bool {
        !self.tags.values().any(|&tagged| tagged == id)
    }

    /// Whether struct `id` is a union, or a union of scalars of one size
    /// (which is its first member under several names).
    fn is_union_like(&self, id: StructId) -> bool {
        let info = &self.structs[id];
        info.is_union || !info.aliases.is_empty()
    }

    /// An anonymous union member of struct `outer` (C11: `union { int v;
    /// char c[4]; };`), or an anonymous struct member of a union: kept
    /// whole, as a member no expression names, whose members `outer`
    /// reaches through it ([`StructInfo::anonymous_paths`]) with the
    /// layout gcc gives them. Its name.
    fn keep_anonymous_member(&mut self, outer: StructId, inner: StructId) -> String {
        let whole = format!("{{anonymous __anon{inner}}}");
        let info = &self.structs[inner];
        let names: Vec<String> = info
            .members
            .iter()
            .chain(info.aliases.keys())
            .chain(info.anonymous_paths.keys())
            .chain(info.anonymous_members.iter())
            .cloned()
            .collect();
        let paths = &mut self.structs[outer].anonymous_paths;
        for name in names {
            paths.insert(name, whole.clone());
        }
        whole
    }

    /// The anonymous member of struct `id` kept whole that holds its member
    /// `name`, if any: that member's field name and its struct.
    pub fn anonymous_path(&self, id: StructId, name: &str) -> Option<(String, StructId)> {
        let info = self.structs.get(id)?;
        let whole = info.anonymous_paths.get(name)?;
        let (_, ty) = info.declared.iter().find(|(field, _)| field == whole)?;
        match ty {
            CType::Struct(inner) => Some((whole.clone(), *inner)),
            _ => None,
        }
    }

    /// An anonymous struct member (C11: `struct { int a; int b; };` inside
    /// a struct) of struct `outer`: its members become `outer`'s, at the
    /// bytes gcc gives them. Its first member is aligned as the anonymous
    /// struct is, and its tail padding becomes a member no expression names
    /// (padding, left out of shared memory). Anonymous members kept whole
    /// inside it ([`Self::keep_anonymous_member`]) stay reachable.
    fn splice_anonymous_member(
        &mut self,
        outer: StructId,
        inner: StructId,
        span: lang_c::span::Span,
        fields: &mut Vec<(String, CType)>,
        members: &mut Vec<String>,
        spliced: &mut Spliced,
    ) -> TResult<()> {
        let info = &self.structs[inner];
        if info.is_union || !info.aliases.is_empty() {
            return self.refuse(span, "an anonymous union spliced into a struct", None);
        }
        let paths = info.anonymous_paths.clone();
        let declared = info.declared.clone();
        let Some((first, _)) = declared.first() else {
            return Ok(());
        };
        let first = first.clone();
        let inner_members = info.members.clone();
        let anonymous: Vec<String> = inner_members
            .iter()
            .chain(info.anonymous_members.iter())
            .cloned()
            .collect();
        let (atomic, alignments, bit_fields) = (
            info.atomic_fields.clone(),
            info.member_alignments.clone(),
            info.bit_fields.clone(),
        );
        let end = self
            .field_extents(inner)
            .iter()
            .map(|(_, end)| *end)
            .max()
            .unwrap_or(0);
        let (alignment, size) = (
            self.alignment(&CType::Struct(inner)),
            self.byte_size(&CType::Struct(inner)),
        );
        let outer_info = &mut self.structs[outer];
        outer_info.atomic_fields.extend(atomic);
        outer_info.member_alignments.extend(alignments);
        outer_info.anonymous_members.extend(anonymous);
        outer_info.anonymous_paths.extend(paths);
        let first_alignment = outer_info.member_alignments.entry(first).or_insert(1);
        *first_alignment = (*first_alignment).max(alignment);
        fields.extend(declared);
        members.extend(inner_members);
        spliced.bit_fields.extend(bit_fields);
        if size > end {
            let tail = format!("{{tail of __anon{inner}}}");
            fields.push((
                tail.clone(),
                CType::Array(Box::new(CType::CHAR), size - end),
            ));
            spliced.tails.push(tail);
        }
        Ok(())
    }

    /// The padding members of struct `id` ([`StructInfo::padding`]) among
    /// its declared `fields`, of which `members` are named: integers or
    /// arrays of integers that no expression names. The first field is
    /// never padding: a pointer to the struct, converted, points to it
    /// (C11 6.7.2.1), so it may be reached without its name.
    fn padding(&self, id: StructId, fields: &[(String, CType)], members: &[String]) -> Vec<String> {
        let Some(named) = &self.named_members else {
            return Vec::new();
        };
        let info = &self.structs[id];
        if info.is_union {
            return Vec::new();
        }
        let is_padding = |(name, ty): &&(String, CType)| {
            members.contains(name)
                && !info.bit_fields.contains_key(name)
                && !named.contains(name)
                && is_integer_data(ty)
        };
        fields
            .iter()
            .skip(1)
            .filter(is_padding)
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// A bit-field declarator `d` of type `base` and width `width`: its bits
    /// in the open run of `bits`, or in a new storage unit of `fields`. Its
    /// name, if it has one.
    fn bit_field(
        &mut self,
        base: &CType,
        d: &'a Node<StructDeclarator>,
        width: &'a Node<Expression>,
        fields: &mut Vec<(String, CType)>,
        bits: &mut BitFieldRuns,
    ) -> TResult<Option<String>> {
        let ty = match &d.node.declarator {
            Some(declarator) => {
                self.apply_declarator(base.clone(), declarator)?
                    .without_atomic()
                    .0
            }
            None => base.clone(),
        };
        let declared_bits = match &ty {
            CType::Int { bits, .. } => u32::from(*bits),
            CType::Bool => 1,
            _ => return self.refuse(d.span, "a bit-field of a type other than an integer", None),
        };
        let Some(width) = self
            .const_eval(width)
            .and_then(|w| u32::try_from(w).ok())
            .filter(|w| *w <= declared_bits)
        else {
            return self.refuse(
                width.span,
                "a bit-field width that is not a constant from 0 to its type's bits",
                None,
            );
        };
        let name = d
            .node
            .declarator
            .as_ref()
            .and_then(|declarator| declarator_name(&declarator.node))
            .map(|n| n.node.name.clone());
        if width == 0 {
            // `int : 0;` ends the storage unit
            bits.close(fields);
            return Ok(None);
        }
        bits.place(name.clone(), width, ty, fields);
        Ok(name)
    }

    /// Applies the attributes after a struct's definition
    /// (`struct s { ... } __attribute__((aligned(64), packed))`) to it.
    fn describe_struct(&mut self, id: StructId, extensions: &'a [Node<Extension>]) -> TResult<()> {
        let layout = self.attributes(extensions.iter())?;
        let info = &mut self.structs[id];
        info.asked_alignment = info.asked_alignment.max(layout.alignment.unwrap_or(1));
        info.packed |= layout.packed;
        Ok(())
    }

    /// What the attributes `extensions` say of a layout: the alignment in
    /// bytes they ask for (`aligned(N)`, or `aligned` alone: 16, gcc's
    /// largest on x86_64), and whether `packed`. `_Alignas(N)` arrives as
    /// `aligned(N)` (the preprocessor spells it so).
    fn attributes(
        &mut self,
        extensions: impl Iterator<Item = &'a Node<Extension>>,
    ) -> TResult<LayoutAttributes> {
        let mut layout = LayoutAttributes::default();
        for extension in extensions {
            let Extension::Attribute(attribute) = &extension.node else {
                continue;
            };
            match attribute.name.node.trim_matches('_') {
                "packed" => {
                    layout.packed = true;
                    continue;
                }
                "aligned" => {}
                _ => continue,
            }
            let alignment = match attribute.arguments.first() {
                None => Some(16),
                Some(argument) => self
                    .const_eval(argument)
                    .and_then(|n| u64::try_from(n).ok()),
            };
            let Some(alignment) = alignment.filter(|n| n.is_power_of_two()) else {
                return self.refuse(
                    extension.span,
                    "an alignment that is not a constant power of two",
                    Some("give `_Alignas` or `aligned` a constant such as 64"),
                );
            };
            layout.alignment = layout.alignment.max(Some(alignment));
        }
        Ok(layout)
    }

    /// The named members of struct `id` in declaration order
    /// ([`StructInfo::members`]); refuses what [`Self::fields`] refuses.
    pub fn members(&self, id: StructId, span: lang_c::span::Span) -> TResult<Vec<String>> {
        self.fields(id, span)?;
        Ok(self.structs[id].members.clone())
    }

    /// Moves a union's first member that takes room (not an empty struct
    /// nor a zero-length array, which take none in GNU C) to the front of
    /// its `fields` and `members`: the member whose scalar the others
    /// alias.
    fn lead_with_data(&self, fields: &mut [(String, CType)], members: &mut [String]) {
        let Some(position) = fields.iter().position(|(_, ty)| self.byte_size(ty) > 0) else {
            return;
        };
        fields[..=position].rotate_right(1);
        let name = &fields[0].0;
        if let Some(member) = members.iter().position(|member| member == name) {
            members[..=member].rotate_right(1);
        }
    }

    /// The members after the first of a union whose members are scalars of
    /// one size (besides members that take no room), by name; `None` for
    /// another union.
    fn scalar_union(&self, fields: &[(String, CType)]) -> Option<HashMap<String, CType>> {
        let (_, first) = fields.first()?;
        let size = self.byte_size(first);
        let scalars = fields.iter().all(|(_, ty)| {
            (ty.is_scalar() && self.byte_size(ty) == size) || self.byte_size(ty) == 0
        });
        scalars.then(|| fields[1..].iter().cloned().collect())
    }

    /// Whether an object of type `ty` holds a union of scalars whose
    /// members are a floating and an integer type (`union { uint32_t
    /// bits; float f; }`): reading one member reads the other's bits,
    /// which shared memory does (it holds every value as its bits) and a
    /// private variable of the first member's type does not.
    pub fn puns_floating(&self, ty: &CType) -> bool {
        match ty {
            CType::Array(element, _) => self.puns_floating(element),
            CType::Struct(id) => self.structs.get(*id).is_some_and(|info| {
                let first = info
                    .fields
                    .iter()
                    .flatten()
                    .next()
                    .map(|(_, first)| first.float_bits().is_some());
                let mixed = first.is_some_and(|first| {
                    info.aliases
                        .values()
                        .any(|alias| alias.float_bits().is_some() != first)
                });
                mixed
                    || info
                        .fields
                        .iter()
                        .flatten()
                        .any(|(_, field)| self.puns_floating(field))
            }),
            _ => false,
        }
    }

    /// The type of the member `name` of a union of scalars that is not its
    /// first, if it is one: the first member seen as this type.
    pub fn alias_member(&self, id: StructId, name: &str) -> Option<CType> {
        self.structs.get(id)?.aliases.get(name).cloned()
    }

    /// The member a designator `.name` of a braced initialiser of struct
    /// `id` names: its position in [`StructInfo::members`], or for a union
    /// of scalars' other member, the first member's position and the
    /// member's own type (its value is stored as that member's). `None`
    /// for no such member.
    pub fn designated_member(&self, id: StructId, name: &str) -> Option<(usize, Option<CType>)> {
        let info = self.structs.get(id)?;
        match info.members.iter().position(|m| m == name) {
            Some(position) => Some((position, None)),
            None => info.aliases.get(name).map(|ty| (0, Some(ty.clone()))),
        }
    }

    /// The type of the member `name` of struct `id` as declared (padding,
    /// which shared memory leaves out, included); `None` for a bit-field
    /// member or no such member.
    pub fn declared_member_type(&self, id: StructId, name: &str) -> Option<CType> {
        let info = self.structs.get(id)?;
        let in_fields = info
            .fields
            .iter()
            .flatten()
            .find(|(field, _)| field == name);
        in_fields
            .or_else(|| info.declared.iter().find(|(field, _)| field == name))
            .map(|(_, ty)| ty.clone())
    }

    /// Whether the member `name` of struct `id` is padding, which shared
    /// memory leaves out ([`StructInfo::padding`]).
    pub fn is_padding(&self, id: StructId, name: &str) -> bool {
        self.structs
            .get(id)
            .is_some_and(|info| info.padding.iter().any(|member| member == name))
    }

    /// Every struct's padding members ([`StructInfo::padding`]) as
    /// `tag.member`.
    pub fn padding_members(&self) -> Vec<String> {
        let members = self.structs.iter().flat_map(|info| {
            info.padding
                .iter()
                .map(move |member| format!("{}.{member}", info.name))
        });
        members.collect()
    }

    /// The bit-field member `name` of struct `id`, if it is one.
    pub fn bit_field_member(&self, id: StructId, name: &str) -> Option<BitField> {
        self.structs.get(id)?.bit_fields.get(name).cloned()
    }

    fn new_struct(&mut self, tag: Option<String>, is_union: bool) -> StructId {
        let id = self.structs.len();
        let name = tag.clone().unwrap_or_else(|| format!("__anon{id}"));
        self.structs.push(StructInfo {
            name,
            is_union,
            fields: None,
            declared: Vec::new(),
            padding: Vec::new(),
            atomic_fields: HashSet::new(),
            bit_fields: HashMap::new(),
            aliases: HashMap::new(),
            members: Vec::new(),
            anonymous_members: HashSet::new(),
            anonymous_paths: HashMap::new(),
            member_alignments: HashMap::new(),
            asked_alignment: 1,
            packed: false,
        });
        if let Some(tag) = tag {
            self.tags.insert(tag, id);
        }
        id
    }

    /// Records the constants of an enum definition.
    pub fn add_enum(&mut self, e: &'a EnumType) {
        let mut next = 0i64;
        for enumerator in &e.enumerators {
            if let Some(value) = &enumerator.node.expression {
                match self.const_eval(value) {
                    Some(v) => next = v,
                    None => continue,
                }
            }
            self.enum_constants
                .insert(enumerator.node.identifier.node.name.clone(), next);
            next = next.wrapping_add(1);
        }
    }

    /// The fields of a struct; refuses unions and incomplete structs.
    pub fn fields(&self, id: StructId, span: lang_c::span::Span) -> TResult<&[(String, CType)]> {
        let info = &self.structs[id];
        if info.is_union {
            let what = if self.is_untagged(id) {
                "an anonymous union whose members are not scalars of one size".to_string()
            } else {
                format!("the union `{}`", info.name)
            };
            return self.refuse(
                span,
                &what,
                Some("memory here is one location per scalar, and a union's members must be one scalar seen as several types of one size (`union { int v; unsigned u; }`); use a struct"),
            );
        }
        match &info.fields {
            Some(fields) => Ok(fields),
            None => self.refuse(
                span,
                &format!("the incomplete struct `{}`", info.name),
                None,
            ),
        }
    }

    /// Size in bytes, as `sizeof` gives it: gcc's on x86_64 (LP64), with
    /// C's alignment padding in structs. The library types that lazysma
    /// models by their state (`sem_t`, `pthread_rwlock_t`,
    /// `pthread_barrier_t`) have the size of that state.
    pub fn byte_size(&self, ty: &CType) -> u64 {
        match ty {
            CType::Void | CType::Bool | CType::Function(..) => 1,
            CType::Int { bits, .. } => u64::from(*bits).div_ceil(8).max(1),
            CType::Pointer(_) | CType::ThreadHandle => 8,
            CType::Float(bytes) => u64::from(*bytes),
            CType::Array(t, n) => self.byte_size(t).saturating_mul(*n),
            CType::Atomic(t) => self.byte_size(t),
            CType::BitField(bits) => self.byte_size(&bits.ty),
            CType::Mutex => 40,
            CType::Opaque(name) => opaque_byte_size(name),
            CType::Struct(id) => {
                let end = self
                    .field_extents(*id)
                    .into_iter()
                    .map(|(_, end)| end)
                    .max()
                    .unwrap_or(0);
                end.next_multiple_of(self.alignment(ty))
            }
        }
    }

    /// Where each field of a struct (or union) starts and ends, in bytes,
    /// in the order of the fields.
    fn field_extents(&self, id: StructId) -> Vec<(u64, u64)> {
        let info = &self.structs[id];
        let mut end = 0u64;
        let mut extents = Vec::new();
        for (name, ty) in &info.declared {
            let start = if info.is_union {
                0
            } else {
                end.next_multiple_of(self.member_alignment(id, name, ty))
            };
            end = start.saturating_add(self.byte_size(ty));
            extents.push((start, end));
        }
        extents
    }

    /// `offsetof(T, designator)` in bytes: the field path's offsets, each
    /// index times its element's size; `None` for an index that is not a
    /// constant.
    pub fn offset_of(&mut self, offset: &'a Node<OffsetOfExpression>) -> TResult<Option<u64>> {
        self.member_offset(offset, Unit::Bytes)
    }

    /// The offset of `offsetof`'s member in its type, in `unit`; `None`
    /// when an index is not a constant.
    pub fn member_offset(
        &mut self,
        offset: &'a Node<OffsetOfExpression>,
        unit: Unit,
    ) -> TResult<Option<u64>> {
        let designator = &offset.node.designator.node;
        let mut ty = self.type_name(&offset.node.type_name)?;
        let (mut total, field_ty) = self.field_offset(&ty, &designator.base, unit)?;
        ty = field_ty;
        for member in &designator.members {
            match &member.node {
                OffsetMember::Member(name) => {
                    let (start, field_ty) = self.field_offset(&ty, name, unit)?;
                    total = total.saturating_add(start);
                    ty = field_ty;
                }
                OffsetMember::Index(index) => {
                    let Some(element) = ty.target().cloned() else {
                        return self.refuse(
                            index.span,
                            "an index in `offsetof` of something other than an array",
                            None,
                        );
                    };
                    let Some(index) = self.const_eval(index) else {
                        return Ok(None);
                    };
                    let stride = match unit {
                        Unit::Bytes => self.byte_size(&element),
                        Unit::Scalars => self.size(&element),
                    };
                    total = total.saturating_add((index as u64).saturating_mul(stride));
                    ty = element;
                }
                OffsetMember::IndirectMember(name) => {
                    return self.refuse(
                        name.span,
                        "`->` in `offsetof`",
                        Some("name the fields with `.`"),
                    );
                }
            }
        }
        Ok(Some(total))
    }

    /// The offset in `unit` and the type of the field `name` of `ty`.
    fn field_offset(
        &self,
        ty: &CType,
        name: &Node<Identifier>,
        unit: Unit,
    ) -> TResult<(u64, CType)> {
        let CType::Struct(id) = ty else {
            return self.refuse(
                name.span,
                "`offsetof` of a field of something other than a struct",
                None,
            );
        };
        if unit == Unit::Scalars {
            return self.field(*id, &name.node.name, name.span);
        }
        self.byte_offset(*id, &name.node.name, name.span)
    }

    /// The offset in bytes and the type of the member `name` of struct (or
    /// union) `id`, through the anonymous members that hold it.
    fn byte_offset(&self, id: StructId, name: &str, span: Span) -> TResult<(u64, CType)> {
        let info = &self.structs[id];
        if info.fields.is_none() {
            self.fields(id, span)?;
        }
        let declared = &info.declared;
        if let Some(index) = declared.iter().position(|(field, _)| field == name) {
            return Ok((self.field_extents(id)[index].0, declared[index].1.clone()));
        }
        if let Some(alias) = self.alias_member(id, name) {
            return Ok((0, alias));
        }
        match self.anonymous_path(id, name) {
            Some((whole, inner)) => {
                let (start, _) = self.byte_offset(id, &whole, span)?;
                let (within, ty) = self.byte_offset(inner, name, span)?;
                Ok((start + within, ty))
            }
            None => Err(self.unknown_field(id, name, span)),
        }
    }

    /// Alignment in bytes (`_Alignof`), gcc's on x86_64.
    pub fn alignment(&self, ty: &CType) -> u64 {
        match ty {
            CType::Array(t, _) | CType::Atomic(t) => self.alignment(t),
            CType::Struct(id) => match &self.structs[*id].fields {
                Some(_) => {
                    let fields = &self.structs[*id].declared;
                    let members = fields
                        .iter()
                        .map(|(name, t)| self.member_alignment(*id, name, t));
                    members
                        .max()
                        .unwrap_or(1)
                        .max(self.structs[*id].asked_alignment)
                }
                None => 1,
            },
            CType::Mutex => 8,
            CType::Opaque(name) => opaque_byte_size(name).min(8),
            other => self.byte_size(other).clamp(1, 16),
        }
    }

    /// The alignment of the member `name` of type `ty` of struct `id`: its
    /// type's, or more if the member asks for more.
    fn member_alignment(&self, id: StructId, name: &str, ty: &CType) -> u64 {
        let info = &self.structs[id];
        let asked = info.member_alignments.get(name).copied().unwrap_or(1);
        if info.packed {
            asked
        } else {
            self.alignment(ty).max(asked)
        }
    }

    /// Size in scalars (one location per scalar): the layout of memory
    /// here, and what `sizeof` gives in an allocation's size
    /// ([`FnLowerer::allocate`](super::lower::FnLowerer)).
    pub fn size(&self, ty: &CType) -> u64 {
        match ty {
            CType::Array(t, n) => self.size(t).saturating_mul(*n),
            CType::Struct(id) => match &self.structs[*id].fields {
                Some(fields) if self.structs[*id].is_union => {
                    fields.iter().map(|(_, t)| self.size(t)).max().unwrap_or(0)
                }
                Some(fields) => fields.iter().map(|(_, t)| self.size(t)).sum::<u64>(),
                None => 1,
            },
            _ => 1,
        }
    }

    /// Offset in scalars and type of a field.
    pub fn field(
        &self,
        id: StructId,
        name: &str,
        span: lang_c::span::Span,
    ) -> TResult<(u64, CType)> {
        let fields = self.fields(id, span)?;
        let mut offset = 0;
        for (field, ty) in fields {
            if field == name {
                return Ok((offset, ty.clone()));
            }
            offset += self.size(ty);
        }
        // a member of an anonymous member kept whole: a union of scalars'
        // other member is its first member's scalar
        if let Some((whole, inner)) = self.anonymous_path(id, name) {
            let (start, _) = self.field(id, &whole, span)?;
            let (within, ty) = match self.alias_member(inner, name) {
                Some(alias) => (0, alias),
                None => self.field(inner, name, span)?,
            };
            return Ok((start + within, ty));
        }
        Err(self.unknown_field(id, name, span))
    }

    fn unknown_field(&self, id: StructId, name: &str, span: lang_c::span::Span) -> Box<Diagnostic> {
        let struct_name = &self.structs[id].name;
        Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("struct `{struct_name}` has no field `{name}`"),
            "unknown field",
            None,
        ))
    }

    /// Whether the field `name` of struct `id` is declared `_Atomic`.
    pub fn field_is_atomic(&self, id: StructId, name: &str) -> bool {
        self.structs[id].atomic_fields.contains(name)
    }

    /// The IR type of private data of this type.
    pub fn ir_type(&self, ty: &CType) -> Ty {
        match ty {
            CType::BitField(bits) => self.ir_type(&bits.ty),
            CType::Void => Ty::Void,
            CType::Bool => Ty::Bool,
            CType::Int { bits, signed } => Ty::Int {
                bits: *bits,
                signed: *signed,
            },
            CType::Pointer(t) if matches!(**t, CType::Function(..)) => Ty::FunctionPointer,
            CType::Pointer(t) => Ty::Pointer(Box::new(self.ir_type(t))),
            CType::Atomic(t) => self.ir_type(t),
            CType::Array(t, n) => Ty::Array(Box::new(self.ir_type(t)), *n),
            CType::Struct(id) => Ty::Struct(*id),
            CType::ThreadHandle => Ty::ThreadHandle,
            CType::Float(bytes) => Ty::Float {
                bits: bytes.saturating_mul(8).min(64),
            },
            CType::Mutex | CType::Opaque(_) | CType::Function(..) => Ty::INT,
        }
    }

    /// The IR struct table.
    pub fn ir_structs(&self) -> Vec<StructDef> {
        self.structs
            .iter()
            .map(|s| StructDef {
                name: s.name.clone(),
                fields: s
                    .fields
                    .iter()
                    .flatten()
                    .map(|(n, t)| (n.clone(), self.ir_type(t)))
                    .collect(),
            })
            .collect()
    }

    /// Evaluates an integer constant expression (`sizeof` in bytes).
    pub fn const_eval(&mut self, e: &'a Node<Expression>) -> Option<i64> {
        match &e.node {
            Expression::Constant(c) => constant_value(&c.node),
            Expression::Identifier(id) => self.enum_constants.get(&id.node.name).copied(),
            Expression::UnaryOperator(u) => {
                let v = self.const_eval(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Some(v.wrapping_neg()),
                    UnaryOperator::Plus => Some(v),
                    UnaryOperator::Complement => Some(!v),
                    UnaryOperator::Negate => Some((v == 0) as i64),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let l = self.const_eval(&b.node.lhs)?;
                let r = self.const_eval(&b.node.rhs)?;
                binary_value(&b.node.operator.node, l, r)
            }
            Expression::Conditional(c) => {
                if self.const_eval(&c.node.condition)? != 0 {
                    self.const_eval(&c.node.then_expression)
                } else {
                    self.const_eval(&c.node.else_expression)
                }
            }
            Expression::Cast(c) => {
                let v = self.const_eval(&c.node.expression)?;
                match self.type_name(&c.node.type_name).ok()?.without_atomic().0 {
                    CType::Int { bits, signed } => Some(truncate(v, bits, signed)),
                    CType::Bool => Some((v != 0) as i64),
                    CType::Pointer(_) => Some(v),
                    _ => None,
                }
            }
            Expression::SizeOfTy(s) => {
                let ty = self.type_name(&s.node.0).ok()?;
                Some(self.byte_size(&ty) as i64)
            }
            Expression::SizeOfVal(s) => {
                let ty = self.static_type(&s.node.0)?;
                Some(self.byte_size(&ty) as i64)
            }
            Expression::AlignOf(s) => {
                let ty = self.type_name(&s.node.0).ok()?;
                Some(self.alignment(&ty) as i64)
            }
            Expression::OffsetOf(offset) => self.offset_of(offset).ok()?.map(|bytes| bytes as i64),
            _ => None,
        }
    }

    /// The type of an expression over global objects, when evident.
    fn static_type(&mut self, e: &'a Node<Expression>) -> Option<CType> {
        match &e.node {
            Expression::Identifier(id) => self.object_types.get(&id.node.name).cloned(),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.static_type(&u.node.operand)?.target().cloned()
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.static_type(&b.node.lhs)?.target().cloned()
            }
            Expression::Member(m) => {
                let base = self.static_type(&m.node.expression)?;
                let id = match (&m.node.operator.node, base) {
                    (MemberOperator::Direct, CType::Struct(id)) => id,
                    (MemberOperator::Indirect, CType::Pointer(t)) => match *t {
                        CType::Struct(id) => id,
                        _ => return None,
                    },
                    _ => return None,
                };
                self.field(id, &m.node.identifier.node.name, m.span)
                    .ok()
                    .map(|(_, t)| t)
            }
            _ => None,
        }
    }
}

/// Value of an integer or character constant.
pub fn constant_value(c: &Constant) -> Option<i64> {
    match c {
        Constant::Integer(i) => {
            let radix = match i.base {
                IntegerBase::Decimal => 10,
                IntegerBase::Octal => 8,
                IntegerBase::Hexadecimal => 16,
                IntegerBase::Binary => 2,
            };
            let digits = integer_digits(i);
            u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
        }
        Constant::Character(s) => char_value(s),
        Constant::Float(_) => None,
    }
}

/// The digits of an integer literal without its base prefix. The prefix
/// goes once and only as its base has it: `0x0B5486B6` keeps the `0B`,
/// which are hexadecimal digits, not a binary prefix.
fn integer_digits(i: &Integer) -> &str {
    let number: &str = &i.number;
    let prefixes: &[&str] = match i.base {
        IntegerBase::Hexadecimal => &["0x", "0X"],
        IntegerBase::Binary => &["0b", "0B"],
        IntegerBase::Decimal | IntegerBase::Octal => &[],
    };
    let digits = prefixes
        .iter()
        .find_map(|prefix| number.strip_prefix(prefix))
        .unwrap_or(number);
    if digits.is_empty() { "0" } else { digits }
}

fn char_value(s: &str) -> Option<i64> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let first = chars.next()?;
    if first != '\\' {
        return Some(first as i64);
    }
    let rest: String = chars.collect();
    Some(match rest.as_str() {
        "n" => 10,
        "t" => 9,
        "r" => 13,
        "0" => 0,
        "\\" => 92,
        "'" => 39,
        "\"" => 34,
        "a" => 7,
        "b" => 8,
        "f" => 12,
        "v" => 11,
        // a character constant is an int of the value of a `char`, which
        // is signed here (x86): '\xff' is -1
        other if other.starts_with('x') => {
            i64::from(u8::from_str_radix(&other[1..], 16).ok()? as i8)
        }
        other => i64::from(u8::from_str_radix(other, 8).ok()? as i8),
    })
}

/// Folds a binary operator on constants.
pub fn binary_value(op: &BinaryOperator, l: i64, r: i64) -> Option<i64> {
    Some(match op {
        BinaryOperator::Multiply => l.wrapping_mul(r),
        BinaryOperator::Divide => l.checked_div(r)?,
        BinaryOperator::Modulo => l.checked_rem(r)?,
        BinaryOperator::Plus => l.wrapping_add(r),
        BinaryOperator::Minus => l.wrapping_sub(r),
        BinaryOperator::ShiftLeft => l.checked_shl(u32::try_from(r).ok()?)?,
        BinaryOperator::ShiftRight => l.checked_shr(u32::try_from(r).ok()?)?,
        BinaryOperator::Less => (l < r) as i64,
        BinaryOperator::Greater => (l > r) as i64,
        BinaryOperator::LessOrEqual => (l <= r) as i64,
        BinaryOperator::GreaterOrEqual => (l >= r) as i64,
        BinaryOperator::Equals => (l == r) as i64,
        BinaryOperator::NotEquals => (l != r) as i64,
        BinaryOperator::BitwiseAnd => l & r,
        BinaryOperator::BitwiseXor => l ^ r,
        BinaryOperator::BitwiseOr => l | r,
        BinaryOperator::LogicalAnd => (l != 0 && r != 0) as i64,
        BinaryOperator::LogicalOr => (l != 0 || r != 0) as i64,
        _ => return None,
    })
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

/// The size in bytes of a library type with no modelled value, glibc's on
/// x86_64.
fn opaque_byte_size(name: &str) -> u64 {
    match name {
        "pthread_attr_t" => 56,
        "pthread_cond_t" => 48,
        "pthread_rwlockattr_t" => 8,
        "FILE" => 216,
        "va_list" | "__builtin_va_list" | "__gnuc_va_list" => 24,
        // pthread_mutexattr_t, pthread_condattr_t, pthread_barrierattr_t
        _ => 4,
    }
}
