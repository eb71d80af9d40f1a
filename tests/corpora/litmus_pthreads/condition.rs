//! The final condition of a herd C litmus test (`exists (0:r0=1 /\ ~x=2)`)
//! read on its own: herd's propositions (`/\` binding tighter than `\/`,
//! `~` tighter than both, `true`, `false`, `=` and `!=` between a register
//! `N:r`, a location and a value) as a tree, and that tree as a C
//! expression over the globals the pthreads program keeps.

use super::convert::Unsupported;

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Operand {
    /// Register `name` of thread `thread` (`1:r0`).
    Register { thread: usize, name: String },
    /// A location's final value, or its address on the right of a pointer.
    Location(String),
    /// An integer.
    Value(i64),
}

/// A proposition of the final condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Proposition {
    Constant(bool),
    Not(Box<Proposition>),
    And(Box<Proposition>, Box<Proposition>),
    Or(Box<Proposition>, Box<Proposition>),
    Compare {
        left: Operand,
        equal: bool,
        right: Operand,
    },
}

/// How the C expression names what the proposition reads.
pub(crate) trait Names {
    /// The global holding register `name` of thread `thread` at the end.
    fn register(&self, thread: usize, name: &str) -> String;
    /// The global of location `name`.
    fn location(&self, name: &str) -> String;
    /// Whether the operand holds a pointer (so a location on the other
    /// side stands for its address).
    fn is_pointer(&self, operand: &Operand) -> bool;
}

impl Proposition {
    /// Every register the proposition reads, in order, without repeats.
    pub(crate) fn registers(&self) -> Vec<(usize, String)> {
        let mut found = Vec::new();
        self.collect_registers(&mut found);
        found
    }

    fn collect_registers(&self, found: &mut Vec<(usize, String)>) {
        match self {
            Proposition::Constant(_) => {}
            Proposition::Not(inner) => inner.collect_registers(found),
            Proposition::And(left, right) | Proposition::Or(left, right) => {
                left.collect_registers(found);
                right.collect_registers(found);
            }
            Proposition::Compare { left, right, .. } => {
                for operand in [left, right] {
                    if let Operand::Register { thread, name } = operand {
                        let key = (*thread, name.clone());
                        if !found.contains(&key) {
                            found.push(key);
                        }
                    }
                }
            }
        }
    }

    /// The proposition as a fully parenthesised C expression.
    pub(crate) fn to_c(&self, names: &dyn Names) -> String {
        match self {
            Proposition::Constant(true) => "1".to_string(),
            Proposition::Constant(false) => "0".to_string(),
            Proposition::Not(inner) => format!("!{}", inner.to_c(names)),
            Proposition::And(left, right) => {
                format!("({} && {})", left.to_c(names), right.to_c(names))
            }
            Proposition::Or(left, right) => {
                format!("({} || {})", left.to_c(names), right.to_c(names))
            }
            Proposition::Compare { left, equal, right } => {
                let operator = if *equal { "==" } else { "!=" };
                let pointer = names.is_pointer(left);
                format!(
                    "({} {operator} {})",
                    operand_to_c(left, false, names),
                    operand_to_c(right, pointer, names)
                )
            }
        }
    }
}

/// An operand in C; a location opposite a pointer is its address.
fn operand_to_c(operand: &Operand, address: bool, names: &dyn Names) -> String {
    match operand {
        Operand::Register { thread, name } => names.register(*thread, name),
        Operand::Location(name) if address => format!("&{}", names.location(name)),
        Operand::Location(name) => names.location(name),
        Operand::Value(value) => value.to_string(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Equal,
    NotEqual,
    Word(String),
}

/// Splits herd's condition syntax into tokens; `[x]` is the word `x`.
fn tokens(text: &str) -> Result<Vec<Token>, Unsupported> {
    let characters: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < characters.len() {
        let here = characters[at];
        let next = characters.get(at + 1).copied();
        let (token, width) = match (here, next) {
            (c, _) if c.is_whitespace() || c == '[' || c == ']' || c == ';' => {
                at += 1;
                continue;
            }
            ('(', _) => (Token::Open, 1),
            (')', _) => (Token::Close, 1),
            ('/', Some('\\')) => (Token::And, 2),
            ('\\', Some('/')) => (Token::Or, 2),
            ('~', _) => (Token::Not, 1),
            ('!', Some('=')) => (Token::NotEqual, 2),
            ('=', Some('=')) => (Token::Equal, 2),
            ('=', Some('>')) => {
                return Err(Unsupported::new("an implication `=>` in the condition"));
            }
            ('=', _) => (Token::Equal, 1),
            (c, _) if is_word_character(c) || c == '-' => {
                let word: String = characters[at..]
                    .iter()
                    .enumerate()
                    .take_while(|(index, c)| is_word_character(**c) || (*index == 0 && **c == '-'))
                    .map(|(_, c)| *c)
                    .collect();
                let width = word.chars().count();
                (Token::Word(word), width)
            }
            (c, _) => return Err(Unsupported::new(format!("`{c}` in the condition"))),
        };
        found.push(token);
        at += width;
    }
    Ok(found)
}

fn is_word_character(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.'
}

/// Reads herd's proposition `text` (the condition after its quantifier).
pub(crate) fn parse(text: &str) -> Result<Proposition, Unsupported> {
    let mut parser = Parser {
        tokens: tokens(text)?,
        at: 0,
    };
    let proposition = parser.disjunction()?;
    match parser.tokens.get(parser.at) {
        None => Ok(proposition),
        Some(token) => Err(Unsupported::new(format!(
            "{token:?} after the end of the condition"
        ))),
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn peek_is(&self, token: &Token) -> bool {
        self.tokens.get(self.at) == Some(token)
    }

    fn disjunction(&mut self) -> Result<Proposition, Unsupported> {
        let mut left = self.conjunction()?;
        while self.peek_is(&Token::Or) {
            self.at += 1;
            left = Proposition::Or(Box::new(left), Box::new(self.conjunction()?));
        }
        Ok(left)
    }

    fn conjunction(&mut self) -> Result<Proposition, Unsupported> {
        let mut left = self.unary()?;
        while self.peek_is(&Token::And) {
            self.at += 1;
            left = Proposition::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Proposition, Unsupported> {
        match self.next() {
            Some(Token::Not) => Ok(Proposition::Not(Box::new(self.unary()?))),
            Some(Token::Open) => {
                let inner = self.disjunction()?;
                match self.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err(Unsupported::new("an unclosed `(` in the condition")),
                }
            }
            Some(Token::Word(word)) if word == "true" => Ok(Proposition::Constant(true)),
            Some(Token::Word(word)) if word == "false" => Ok(Proposition::Constant(false)),
            Some(Token::Word(word)) => self.comparison(&word),
            other => Err(Unsupported::new(format!(
                "{other:?} where the condition needs a proposition"
            ))),
        }
    }

    fn comparison(&mut self, left: &str) -> Result<Proposition, Unsupported> {
        let equal = match self.next() {
            Some(Token::Equal) => true,
            Some(Token::NotEqual) => false,
            other => {
                return Err(Unsupported::new(format!(
                    "{other:?} after `{left}` in the condition"
                )));
            }
        };
        let right = match self.next() {
            Some(Token::Word(word)) => operand(&word)?,
            other => {
                return Err(Unsupported::new(format!(
                    "{other:?} on the right of `{left}`"
                )));
            }
        };
        Ok(Proposition::Compare {
            left: operand(left)?,
            equal,
            right,
        })
    }
}

/// A word of the condition: `N:r` a register, a number a value, else a
/// location.
fn operand(word: &str) -> Result<Operand, Unsupported> {
    if let Some((thread, name)) = word.split_once(':') {
        let thread = thread
            .parse()
            .map_err(|_| Unsupported::new(format!("the register `{word}`")))?;
        return Ok(Operand::Register {
            thread,
            name: name.to_string(),
        });
    }
    if let Ok(value) = word.parse::<i64>() {
        return Ok(Operand::Value(value));
    }
    if word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return Ok(Operand::Location(word.to_string()));
    }
    Err(Unsupported::new(format!("the value `{word}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain;

    impl Names for Plain {
        fn register(&self, thread: usize, name: &str) -> String {
            format!("R{thread}{name}")
        }
        fn location(&self, name: &str) -> String {
            format!("L{name}")
        }
        fn is_pointer(&self, operand: &Operand) -> bool {
            matches!(operand, Operand::Register { name, .. } if name == "p")
        }
    }

    #[test]
    fn conjunction_binds_tighter_than_disjunction_and_negation_tightest() {
        let proposition = parse(r"~x=2 \/ 0:r0=1 /\ y!=-1").expect("parses");
        assert_eq!(
            proposition.to_c(&Plain),
            "(!(Lx == 2) || ((R0r0 == 1) && (Ly != -1)))"
        );
    }

    #[test]
    fn a_location_opposite_a_pointer_register_is_its_address() {
        let proposition = parse("(1:p=x /\\ true)").expect("parses");
        assert_eq!(proposition.to_c(&Plain), "((R1p == &Lx) && 1)");
        assert_eq!(proposition.registers(), vec![(1, "p".to_string())]);
    }

    #[test]
    fn an_implication_is_unsupported() {
        assert!(parse("x=1 => y=1").is_err());
    }
}
