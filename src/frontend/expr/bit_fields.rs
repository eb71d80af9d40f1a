//! Bit-field members: a run of adjacent bit-fields is one unsigned storage
//! unit of its struct ([`crate::frontend::c_types::types::BitField`]), so
//! reading a member reads the unit and takes its bits out, and storing one
//! reads the unit, puts the bits in and writes the unit back: two steps, as
//! on hardware, so that threads storing adjacent bit-fields can lose each
//! other's stores.

use crate::frontend::c_types::types::{BitField, CType};
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val};
use crate::ir::*;
use lang_c::span::Span;

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The member `bits` of the struct object `base`: the lvalue of its
    /// storage unit, typed as the bit-field.
    pub fn bit_field_lvalue(
        &self,
        base: &LVal,
        id: StructId,
        bits: BitField,
        span: Span,
    ) -> LResult<LVal> {
        let unit = self.member(base, id, &bits.unit, span)?;
        Ok(with_type(unit, CType::BitField(Box::new(bits))))
    }

    /// Reads the bit-field at `unit` (its storage unit's lvalue).
    pub fn load_bit_field(&mut self, unit: LVal, bits: &BitField, span: Span) -> LResult<Val> {
        let word = self.load(with_type(unit, bits.unit_type.clone()), span)?;
        Ok(Val {
            expr: self.bits_of(word.expr, bits),
            ty: bits.ty.clone(),
        })
    }

    /// Stores `value` into the bit-field at `unit`: the unit is read, its
    /// other bits kept, and written back.
    pub fn store_bit_field(
        &mut self,
        unit: LVal,
        bits: &BitField,
        value: Val,
        span: Span,
    ) -> LResult<()> {
        let value = self.convert(value, &bits.ty, span)?;
        let unit = with_type(unit, bits.unit_type.clone());
        let word = self.load(unit.clone(), span)?;
        let unit_ty = self.lw.types.ir_type(&bits.unit_type);
        let mask = low_bits(bits.width) << bits.offset;
        let kept = binary(BinaryOp::BitAnd, word.expr, Expr::Const(!mask));
        let placed = binary(
            BinaryOp::Shl,
            Expr::Cast(unit_ty, Box::new(value)),
            Expr::Const(i64::from(bits.offset)),
        );
        let placed = binary(BinaryOp::BitAnd, placed, Expr::Const(mask));
        let new = Val {
            expr: binary(BinaryOp::BitOr, kept, placed),
            ty: bits.unit_type.clone(),
        };
        self.store(&unit, new, span)
    }

    /// The value of the bit-field `bits` in the unit's value `word`: its
    /// bits shifted down, sign-extended for a signed type.
    pub fn bits_of(&self, word: Expr, bits: &BitField) -> Expr {
        let unit_bits = match bits.unit_type {
            CType::Int { bits, .. } => i64::from(bits),
            _ => 32,
        };
        let signed = matches!(bits.ty, CType::Int { signed: true, .. });
        let value_ty = self.lw.types.ir_type(&bits.ty);
        if !signed {
            let shifted = binary(BinaryOp::Shr, word, Expr::Const(i64::from(bits.offset)));
            let field = binary(BinaryOp::BitAnd, shifted, Expr::Const(low_bits(bits.width)));
            return Expr::Cast(value_ty, Box::new(field));
        }
        // to the top of a signed word, then arithmetically down
        let up = binary(
            BinaryOp::Shl,
            word,
            Expr::Const(unit_bits - i64::from(bits.offset) - i64::from(bits.width)),
        );
        let signed_word = Expr::Cast(
            Ty::Int {
                bits: unit_bits as u8,
                signed: true,
            },
            Box::new(up),
        );
        let down = binary(
            BinaryOp::Shr,
            signed_word,
            Expr::Const(unit_bits - i64::from(bits.width)),
        );
        Expr::Cast(value_ty, Box::new(down))
    }

    /// `value` as the bit-field `bits` holds it (`s.a = 5` is 1 for a
    /// 2-bit unsigned `a`): the value of an assignment to it.
    pub fn as_bit_field(&self, value: Expr, bits: &BitField) -> Expr {
        let unit_ty = self.lw.types.ir_type(&bits.unit_type);
        let word = binary(
            BinaryOp::Shl,
            Expr::Cast(unit_ty, Box::new(value)),
            Expr::Const(i64::from(bits.offset)),
        );
        self.bits_of(word, bits)
    }
}

/// The type of the values of an object of type `ty`: a bit-field's
/// declared type, else `ty`.
pub fn value_type(ty: &CType) -> CType {
    match ty {
        CType::BitField(bits) => bits.ty.clone(),
        other => other.clone(),
    }
}

/// The number whose low `width` bits are ones (all 64 for 64).
pub fn low_bits(width: u8) -> i64 {
    if width >= 64 { -1 } else { (1i64 << width) - 1 }
}

/// `lvalue` with its type replaced.
fn with_type(lvalue: LVal, ty: CType) -> LVal {
    match lvalue {
        LVal::Private(place, _) => LVal::Private(place, ty),
        LVal::Shared {
            address, atomic, ..
        } => LVal::Shared {
            address,
            ty,
            atomic,
        },
    }
}
