//! The fast parser's comma-separated lists (values, superclass references,
//! dag arguments) and a record body's items: each is gathered on one of
//! the parser's per-statement stacks and moved out in one exact
//! allocation once complete (no regrowth, no shrinking); a list that fails
//! leaves its stack as it found it.

use super::*;

impl Descent<'_> {
    pub(super) fn class_refs(&mut self) -> Option<Vec<ClassRef>> {
        let base = self.refs.len();
        if self.class_refs_onto().is_none() {
            self.refs.truncate(base);
            return None;
        }
        Some(self.refs.drain(base..).collect())
    }

    /// The references of [`Descent::class_refs`], pushed onto `self.refs`.
    fn class_refs_onto(&mut self) -> Option<()> {
        loop {
            let name = self.ident()?;
            let start = name.span.start as usize;
            self.ws();
            let args = if self.peek() == b'<' {
                self.inst_args()?
            } else {
                Vec::new()
            };
            let r = ClassRef {
                name,
                args,
                span: self.span(start),
            };
            self.refs.push(r);
            if self.expect(b',').is_none() {
                break;
            }
        }
        Some(())
    }

    /// `value, value, ...` up to (not taking) `close`; empty if `close`
    /// comes first. With `trailing_comma`, a `,` may end the list.
    pub(super) fn values(&mut self, close: u8, trailing_comma: bool) -> Option<Vec<Expr>> {
        let base = self.values.len();
        if self.values_onto(close, trailing_comma).is_none() {
            self.values.truncate(base);
            return None;
        }
        Some(self.values.drain(base..).collect())
    }

    /// The values of [`Descent::values`], pushed onto `self.values`.
    fn values_onto(&mut self, close: u8, trailing_comma: bool) -> Option<()> {
        self.ws();
        if self.peek() != close {
            loop {
                let v = self.value(false)?;
                self.values.push(v);
                if self.expect(b',').is_none() {
                    break;
                }
                self.ws();
                if trailing_comma && self.peek() == close {
                    break;
                }
            }
        }
        self.expect(close)
    }

    /// A record body's items up to its `}` (not taken), pushed onto
    /// `self.items`.
    pub(super) fn body_items_onto(&mut self) -> Option<()> {
        loop {
            self.ws();
            if self.peek() == b'}' {
                return Some(());
            }
            let it = self.body_item()?;
            self.items.push(it);
        }
    }

    /// A dag's arguments and its `)`, the arguments pushed onto
    /// `self.dag_args`.
    pub(super) fn dag_args_onto(&mut self) -> Option<()> {
        self.ws();
        if self.peek() != b')' {
            loop {
                let a = self.dag_arg()?;
                self.dag_args.push(a);
                if self.expect(b',').is_none() {
                    break;
                }
            }
        }
        self.expect(b')')
    }

    pub(super) fn inst_args(&mut self) -> Option<Vec<Expr>> {
        self.bump(1);
        self.values(b'>', false)
    }
}
