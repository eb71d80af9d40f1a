//! Loads and stores of objects, private or in shared memory, and the
//! conversions of values to the type of the object that receives them.

use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{FnLowerer, LResult, MemoryOrder};
use crate::frontend::values::{LVal, Val, memory_type};
use crate::ir::*;
use lang_c::span::Span;

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Reads an lvalue; arrays decay to their address.
    pub fn load(&mut self, lv: LVal, span: Span) -> LResult<Val> {
        if let CType::BitField(bits) = lv.ty().clone() {
            return self.load_bit_field(lv, &bits, span);
        }
        match lv {
            LVal::Private(place, ty) => match ty {
                CType::Array(..) => {
                    self.lw
                        .refuse(span, "using a private array as a pointer", None)
                }
                CType::Function(..) => self.lw.refuse(
                    span,
                    "a function pointer",
                    Some("only thread entry functions may be named without a call"),
                ),
                CType::Void => self.lw.refuse(
                    span,
                    "a read of an object without a type (a byte of a union's char array that names a wider scalar)",
                    Some("read the union's scalar member"),
                ),
                ty => Ok(Val {
                    expr: Expr::Load(place),
                    ty,
                }),
            },
            LVal::Shared { address, ty, .. } => match ty {
                CType::Array(element, _) => Ok(Val {
                    expr: self.lw.pointer_to(address),
                    ty: CType::Pointer(element),
                }),
                CType::Struct(_) => self.lw.refuse(
                    span,
                    "using a shared struct as a value",
                    Some("access its fields one by one"),
                ),
                CType::Function(..) | CType::Void => self.lw.refuse(span, "this access", None),
                ty => {
                    self.lw.shared_float_fits(&ty, span)?;
                    Ok(self.read_shared(address, ty))
                }
            },
        }
    }

    /// Reads the shared scalar at `address` into a fresh temporary (its own
    /// `Read`) and gives the temporary as the value. A floating value is
    /// read as the integer of its bits ([`floating_bits`]).
    pub fn read_shared(&mut self, address: Expr, ty: CType) -> Val {
        let stored = memory_type(&ty);
        let temp = self.temp(&stored);
        self.note_access_type(&stored);
        self.emit(StmtKind::Read {
            target: Place::Local(temp),
            address,
        });
        let expr = self.value_from_memory(Expr::Load(Place::Local(temp)), &ty);
        Val { expr, ty }
    }

    /// Stores `value` into an lvalue (a `Write` for shared memory; a store
    /// to an `_Atomic` object is `seq_cst`, as `atomic_store`).
    pub fn store(&mut self, lv: &LVal, value: Val, span: Span) -> LResult<()> {
        if let CType::BitField(bits) = lv.ty() {
            return self.store_bit_field(lv.clone(), &bits.clone(), value, span);
        }
        if matches!(lv.ty(), CType::Void) {
            return self.lw.refuse(
                span,
                "a store to an object without a type (a byte of a union's char array that names a wider scalar)",
                Some("store to the union's scalar member"),
            );
        }
        let converted = self.convert(value, lv.ty(), span)?;
        if let LVal::Shared { ty, .. } = lv {
            self.lw.shared_float_fits(ty, span)?;
        }
        match lv {
            LVal::Private(place, _) => self.emit(StmtKind::Assign(place.clone(), converted)),
            LVal::Shared {
                address,
                atomic: true,
                ty,
            } => self.ordered_store(address.clone(), converted, ty, &MemoryOrder::SEQ_CST)?,
            LVal::Shared { address, ty, .. } => self.write_shared(address.clone(), converted, ty),
        }
        Ok(())
    }

    /// Stores `value`, a value of type `ty`, at `address` in shared memory,
    /// as shared memory of the `--bitwidth` holds it: every store of a typed
    /// program value goes through here.
    pub fn write_shared(&mut self, address: Expr, value: Expr, ty: &CType) {
        // a floating value goes to memory as the integer of its bits
        let value = self.to_memory(value, ty);
        let stored = memory_type(ty);
        let ty = &stored;
        self.cut_off_wider_than_shared_memory(&value, ty);
        let value = self.as_stored(value, ty);
        self.note_access_type(ty);
        self.emit(StmtKind::Write { address, value });
    }

    /// A value of an unsigned type narrower than `int` goes to a shared
    /// memory narrower than `int` as the signed type of its width (see
    /// `globals::stored_value`), so that all of its values fit when the
    /// memory is at least as wide as the type.
    pub(in crate::frontend) fn as_stored(&mut self, value: Expr, ty: &CType) -> Expr {
        match (ty, value) {
            (
                CType::Int {
                    bits,
                    signed: false,
                },
                value,
            ) if *bits < 32 && self.lw.value_bits < 32 => match value {
                Expr::Const(v) => Expr::Const(crate::frontend::values::stored_value(v, ty)),
                value => Expr::Cast(
                    Ty::Int {
                        bits: *bits,
                        signed: true,
                    },
                    Box::new(value),
                ),
            },
            (_, value) => value,
        }
    }

    /// Converts a value to the type it is stored as.
    pub fn convert(&mut self, value: Val, to: &CType, span: Span) -> LResult<Expr> {
        self.note_conversion(&value, to);
        self.note_allocation_type(&value, to);
        if let CType::BitField(bits) = to {
            let converted = self.convert(value, &bits.ty, span)?;
            return Ok(self.as_bit_field(converted, bits));
        }
        match (to, &value.ty) {
            (CType::Float(_), CType::Float(_) | CType::Int { .. } | CType::Bool)
            | (CType::Int { .. }, CType::Float(_)) => Ok(self.numeric_conversion(value, to)),
            (CType::Float(_), _)
            | (CType::Pointer(_) | CType::ThreadHandle | CType::Atomic(_), CType::Float(_)) => {
                self.lw.error(
                    span,
                    "converting between a floating value and a non-number",
                    "not a number",
                )
            }
            (CType::Struct(_), _) | (CType::Array(..), _) => self.lw.refuse(
                span,
                "assigning an aggregate here",
                Some("assign its scalars one by one"),
            ),
            (CType::Bool, CType::Bool) => Ok(value.expr),
            (CType::Bool, _) => Ok(match value.expr {
                Expr::Const(v) => Expr::Const((v != 0) as i64),
                e => Expr::Binary(BinaryOp::Ne, Box::new(e), Box::new(Expr::Const(0))),
            }),
            (CType::Int { bits, signed }, from) => {
                let same = matches!(from, CType::Int { bits: b, signed: s } if b == bits && s == signed)
                    || (*bits >= 32 && from.is_pointer());
                match value.expr {
                    Expr::Const(v) => Ok(Expr::Const(truncate(v, *bits, *signed))),
                    e if same || (matches!(from, CType::Bool)) => Ok(e),
                    e => Ok(Expr::Cast(self.lw.types.ir_type(to), Box::new(e))),
                }
            }
            _ => Ok(value.expr),
        }
    }

    /// Notes the type that the latest allocation's `void *` is converted
    /// to (`double *h = malloc(...)`, `(struct node *)malloc(...)`): its
    /// block holds values of that type, as reports show them. The first
    /// conversion of an allocating statement counts.
    pub(in crate::frontend) fn note_allocation_type(&mut self, value: &Val, to: &CType) {
        let (CType::Pointer(source), CType::Pointer(target)) = (&value.ty, to) else {
            return;
        };
        if !matches!(**source, CType::Void) || matches!(**target, CType::Void) {
            return;
        }
        match &self.latest_allocation {
            Some((pointer, origin)) if *pointer == value.expr => {
                let (origin, ty) = (*origin, self.lw.types.ir_type(target));
                self.lw.program.allocation_types.entry(origin).or_insert(ty);
            }
            _ => {}
        }
    }

    /// `value` converted to the number type `to` where one of the two is
    /// floating: as C converts (a `double` to an integer rounds toward
    /// zero), in the printed C.
    pub(in crate::frontend) fn numeric_conversion(&mut self, value: Val, to: &CType) -> Expr {
        if &value.ty == to {
            return value.expr;
        }
        Expr::Cast(self.lw.types.ir_type(to), Box::new(value.expr))
    }
}
