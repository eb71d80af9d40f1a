//! `char` arrays initialised by string literals (`char name[8] = "abc";`,
//! `char s[] = "hi";`): each element gets its character, the elements
//! after the literal get zero, and an array declared without a length gets
//! the literal's length with its terminating zero.

use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{LResult, Lowerer};
use lang_c::ast::{Expression, Initializer, StringLiteral};
use lang_c::span::Node;

/// The string literal that `init` initialises a character array with:
/// `"abc"`, or `{ "abc" }` (C allows the braces).
pub fn string_initialiser(init: &Node<Initializer>) -> Option<&Node<StringLiteral>> {
    match &init.node {
        Initializer::Expression(e) => match &e.node {
            Expression::StringLiteral(literal) => Some(literal),
            _ => None,
        },
        Initializer::List(items) => match items.as_slice() {
            [item] if item.node.designation.is_empty() => {
                string_initialiser(&item.node.initializer)
            }
            _ => None,
        },
    }
}

/// The string literal that initialises an array of `element`s by `init`,
/// when it does: a bare literal initialises any array (one of other
/// elements is refused), a braced one a character array only (`{"ab"}`
/// for an array of strings is a list of one string).
pub fn array_string_initialiser<'i>(
    element: &CType,
    init: &'i Node<Initializer>,
) -> Option<&'i Node<StringLiteral>> {
    match &init.node {
        Initializer::List(_) if !is_character(element) => None,
        _ => string_initialiser(init),
    }
}

/// Whether `ty` is a character type (`char`, `signed char`, `unsigned
/// char`), the element type an array initialised by a string has.
pub fn is_character(ty: &CType) -> bool {
    matches!(ty, CType::Int { bits: 8, .. })
}

/// A character array type declared without a length (`char s[] = "hi"`)
/// with the length its string gives it (a braced list's:
/// [`Lowerer::completed_array`](crate::frontend::lower::Lowerer::completed_array)).
pub fn completed_array(ty: CType, init: Option<&Node<Initializer>>) -> CType {
    let CType::Array(element, 0) = &ty else {
        return ty;
    };
    let Some(init) = init else {
        return ty;
    };
    if is_character(element)
        && let Some(literal) = string_initialiser(init)
        && let Ok(bytes) = literal_bytes(&literal.node)
    {
        return CType::Array(element.clone(), bytes.len() as u64 + 1);
    }
    ty
}

/// The bytes of a string literal (its pieces concatenated, escape sequences
/// decoded), without the terminating zero; or what is refused about it.
pub fn literal_bytes(literal: &StringLiteral) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for piece in literal {
        let Some(quote) = piece.find('"') else {
            return Err("a malformed string literal".into());
        };
        match &piece[..quote] {
            "" | "u8" => {}
            prefix => return Err(format!("a wide string literal (prefix `{prefix}`)")),
        }
        let body = piece[quote + 1..]
            .strip_suffix('"')
            .unwrap_or(&piece[quote + 1..]);
        decode_escapes(body, &mut bytes)?;
    }
    Ok(bytes)
}

/// Appends the bytes of the body of one string literal piece to `out`.
fn decode_escapes(body: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buffer = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            continue;
        }
        let Some(escape) = chars.next() else {
            return Err("a string literal ending in a backslash".into());
        };
        let byte = match escape {
            'n' => b'\n',
            't' => b'\t',
            'r' => b'\r',
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            'e' | 'E' => 27,
            '\\' | '\'' | '"' | '?' => escape as u8,
            'x' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_hexdigit()) {
                    digits.push(*d);
                    chars.next();
                }
                u8::from_str_radix(&digits, 16)
                    .map_err(|_| format!("the escape sequence `\\x{digits}` in a string literal"))?
            }
            '0'..='7' => {
                let mut digits = escape.to_string();
                while digits.len() < 3
                    && let Some(d) = chars.peek().filter(|d| ('0'..='7').contains(*d))
                {
                    digits.push(*d);
                    chars.next();
                }
                u8::try_from(u32::from_str_radix(&digits, 8).unwrap_or(u32::MAX))
                    .map_err(|_| format!("the escape sequence `\\{digits}` in a string literal"))?
            }
            other => {
                return Err(format!(
                    "the escape sequence `\\{other}` in a string literal"
                ));
            }
        };
        out.push(byte);
    }
    Ok(())
}

impl<'a> Lowerer<'a> {
    /// The `length` values of an array of `element`s initialised by
    /// `literal`: its characters as `element` holds them, then zeros.
    pub fn string_values(
        &self,
        literal: &Node<StringLiteral>,
        element: &CType,
        length: u64,
    ) -> LResult<Vec<i64>> {
        let CType::Int { bits: 8, signed } = element else {
            return self.refuse(
                literal.span,
                "a string literal initialising an array whose elements are not characters",
                Some("wide strings (`L\"...\"`) are not supported: write the values as a braced list of constants"),
            );
        };
        let bytes = match literal_bytes(&literal.node) {
            Ok(bytes) => bytes,
            Err(what) => {
                return self.refuse(
                    literal.span,
                    what,
                    Some("write the characters as a braced list of constants"),
                );
            }
        };
        // the terminating zero is dropped when the array has no room for it
        if bytes.len() as u64 > length {
            return self.error(
                literal.span,
                format!(
                    "the string needs {} characters but the array holds {length}",
                    bytes.len()
                ),
                "initialiser-string too long for the array",
            );
        }
        let mut values: Vec<i64> = bytes
            .iter()
            .map(|&b| truncate(i64::from(b), 8, *signed))
            .collect();
        values.resize(usize::try_from(length).unwrap_or(values.len()), 0);
        Ok(values)
    }

    /// The object a string literal denotes (`char *p = "ab";`, `sizeof
    /// "ab"`): a global array of its characters and a zero, one per
    /// distinct string, named `string#N`; its address and its array type.
    /// Writing to it is undefined in C; here it would change the string for
    /// every use.
    pub fn string_object(&mut self, literal: &'a Node<StringLiteral>) -> LResult<(i64, CType)> {
        let character = CType::CHAR;
        let length = match literal_bytes(&literal.node) {
            Ok(bytes) => bytes.len() as u64 + 1,
            Err(what) => {
                return self.refuse(
                    literal.span,
                    what,
                    Some("write the characters into a `char` array"),
                );
            }
        };
        let values = self.string_values(literal, &character, length)?;
        self.string_of_values(values, literal.span)
    }

    /// The object of a string that a library function returns
    /// (`strerror`'s message): as [`Self::string_object`] of its literal.
    pub fn library_string(
        &mut self,
        text: &str,
        span: lang_c::span::Span,
    ) -> LResult<(i64, CType)> {
        let values = text
            .bytes()
            .map(i64::from)
            .chain(std::iter::once(0))
            .collect();
        self.string_of_values(values, span)
    }

    /// The string object of the characters `values` (a zero last), shared
    /// by every string of these characters.
    fn string_of_values(
        &mut self,
        values: Vec<i64>,
        span: lang_c::span::Span,
    ) -> LResult<(i64, CType)> {
        let character = CType::CHAR;
        let ty = CType::Array(Box::new(character.clone()), values.len() as u64);
        if let Some(&base) = self.string_objects.get(&values) {
            return Ok((i64::from(base), ty));
        }
        if let Some(&wide) = values.iter().find(|&&v| {
            !crate::frontend::values::fits_shared_memory(v, &character, self.value_bits)
        }) {
            return self.value_too_wide(wide, span);
        }
        let name = format!("string#{}", self.string_objects.len());
        let base = self.program.locations.len() as u32;
        self.declare_global(&name, ty.clone(), None, false, span)?;
        self.set_initial_values(base, &values.iter().copied().collect());
        self.string_objects.insert(values, base);
        Ok((i64::from(base), ty))
    }
}

impl Lowerer<'_> {
    /// The `argv` of a run without arguments: a global array of two `char
    /// *`, the program's name (`"program"`) and `NULL`; its first location.
    pub fn program_arguments(&mut self, span: lang_c::span::Span) -> LResult<i64> {
        let name: Vec<i64> = b"program"
            .iter()
            .map(|&byte| i64::from(byte))
            .chain(std::iter::once(0))
            .collect();
        let name_base = self.named_global_array("program_name", CType::CHAR, &name, span)?;
        let pointer = CType::Pointer(Box::new(CType::CHAR));
        self.note_address_taken(&crate::ir::Expr::Const(name_base));
        let first = name_base * self.program.address_unit();
        self.named_global_array("argv", pointer, &[first, 0], span)
    }

    /// A global array of `values` of type `element`, named `name` in
    /// reports (a name the program cannot use); its first location.
    fn named_global_array(
        &mut self,
        name: &str,
        element: CType,
        values: &[i64],
        span: lang_c::span::Span,
    ) -> LResult<i64> {
        let key = format!("main::{name}");
        let base = self.program.locations.len();
        self.declare_global(
            &key,
            CType::Array(Box::new(element), values.len() as u64),
            None,
            false,
            span,
        )?;
        self.set_initial_values(base as u32, &values.iter().copied().collect());
        self.program.locations.rename_object(base as u32, name);
        Ok(base as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::literal_bytes;

    fn bytes(pieces: &[&str]) -> Result<Vec<u8>, String> {
        literal_bytes(&pieces.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn escapes_decode_as_c_reads_them() {
        assert_eq!(bytes(&[r#""a\n\t\\\"\?""#]), Ok(b"a\n\t\\\"?".to_vec()));
        assert_eq!(bytes(&[r#""\x41\101\0\7""#]), Ok(vec![65, 65, 0, 7]));
        // an octal escape takes at most three digits
        assert_eq!(bytes(&[r#""\1012""#]), Ok(vec![65, b'2']));
        // a hexadecimal escape takes every hexadecimal digit after it
        assert_eq!(bytes(&[r#""\xffz""#]), Ok(vec![255, b'z']));
    }

    #[test]
    fn adjacent_pieces_concatenate_and_u8_is_narrow() {
        assert_eq!(bytes(&[r#""ab""#, r#"u8"c""#]), Ok(b"abc".to_vec()));
        assert_eq!(bytes(&[r#""é""#]), Ok("é".as_bytes().to_vec()));
    }

    #[test]
    fn wide_literals_and_bad_escapes_are_refused() {
        assert!(bytes(&[r#"L"ab""#]).is_err_and(|what| what.contains("`L`")));
        assert!(bytes(&[r#""\x100""#]).is_err());
        assert!(bytes(&[r#""\400""#]).is_err());
        assert!(bytes(&[r#""\q""#]).is_err());
    }
}
