//! Turning pest's parse failures into located diagnostics that say, in
//! words, what was expected and what was found.

use pest::Parser as _;

use crate::diag::Diag;
use crate::ir::parse::{IrParser, Rule};

/// Words for a grammar rule the parser wanted.
fn describe_rule(rule: &str) -> Option<&'static str> {
    Some(match rule {
        "type" | "any_type" | "base_type" | "int_type" | "named_type" | "ptr_type"
        | "vector_type" => "a type",
        "value" | "constant" | "typed_value" => "a value",
        "local_name" => "a local name (`%x`)",
        "global_name" => "a global name (`@f`)",
        "label_def" => "a label",
        "instruction" | "binop" | "fbinop" | "other_inst" | "known_op" => "an instruction",
        "uint" | "int_lit" => "a number",
        "top_item" => "`define` or `declare`",
        "icmp_pred" => "an `icmp` predicate (`eq`, `slt`, ...)",
        "params" | "param" => "a parameter",
        "phi_entry" => "`[ value, %label ]`",
        _ => return None,
    })
}

/// The opcodes and call prefixes the grammar tries where an instruction may start.
const OPCODE_TOKENS: [&str; 30] = [
    "add",
    "sub",
    "mul",
    "and",
    "or",
    "xor",
    "shl",
    "lshr",
    "ashr",
    "fadd",
    "fsub",
    "fmul",
    "icmp",
    "select",
    "zext",
    "sext",
    "trunc",
    "bitcast",
    "extractelement",
    "insertelement",
    "phi",
    "br",
    "ret",
    "load",
    "store",
    "getelementptr",
    "call",
    "tail",
    "musttail",
    "notail",
];

/// Words for a token the parser wanted; `None` for the characters that
/// would merely continue a name or number (and for blanks).
fn describe_token(t: &str) -> Option<String> {
    if OPCODE_TOKENS.contains(&t) {
        return Some("an instruction".to_string());
    }
    let is_range = t.len() == 4 && t.as_bytes().get(1..3) == Some(b"..".as_slice());
    let continues_name = t.len() == 1 && "\"$-._".contains(t);
    let blank = t.trim().is_empty() || t == ";";
    (!(is_range || continues_name || blank)).then(|| format!("`{t}`"))
}

/// What is at `pos`: a word, a symbol, or the end of the file; and where it ends.
fn found_at(text: &str, pos: usize) -> (String, usize) {
    let rest = text.get(pos..).unwrap_or("");
    let Some(first) = rest.chars().next() else {
        return ("end of file".to_string(), pos);
    };
    let is_word = |c: char| c.is_ascii_alphanumeric() || "_.$-%@!".contains(c);
    let len = if is_word(first) {
        rest.find(|c: char| !is_word(c)).unwrap_or(rest.len())
    } else {
        first.len_utf8()
    };
    let tok = &rest[..len];
    let shown = if tok == "\n" {
        "end of line".to_string()
    } else {
        format!("`{tok}`")
    };
    (shown, pos + len)
}

/// Re-parses with pest's detailed error tracking to learn the tokens and
/// rules tried at the furthest position.
fn attempts(rule: Rule, text: &str) -> Option<(usize, Vec<String>)> {
    // pest's switch is process-wide: count the threads that need it on.
    static USERS: std::sync::Mutex<usize> = std::sync::Mutex::new(0);
    {
        let mut n = USERS.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        pest::set_error_detail(true);
    }
    let result = IrParser::parse(rule, text);
    {
        let mut n = USERS.lock().unwrap_or_else(|p| p.into_inner());
        *n = n.saturating_sub(1);
        if *n == 0 {
            pest::set_error_detail(false);
        }
    }
    let e = result.err()?;
    let a = e.parse_attempts()?;
    let mut words: Vec<String> = a
        .expected_tokens()
        .into_iter()
        .filter_map(|t| describe_token(&t.to_string()))
        .collect();
    for c in a.call_stacks() {
        let deepest = format!("{:?}", c.deepest);
        let name = deepest
            .strip_prefix("Rule(")
            .and_then(|x| x.strip_suffix(')'))
            .map(str::to_string)
            .or_else(|| c.parent.map(|r| format!("{r:?}")));
        if let Some(d) = name.as_deref().and_then(describe_rule) {
            words.push(d.to_string());
        }
    }
    words.sort();
    words.dedup();
    Some((a.max_position, words))
}

fn join_alternatives(words: &[String]) -> String {
    match words {
        [] => "something else".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A located "expected ..., found ..." diagnostic for a failed parse of
/// `text` from `rule`.
pub(crate) fn syntax_error(rule: Rule, text: &str, e: &pest::error::Error<Rule>) -> Diag {
    let mut pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            let mut w: Vec<String> = positives
                .iter()
                .map(|r| {
                    let name = format!("{r:?}");
                    describe_rule(&name).map_or(format!("`{name}`"), str::to_string)
                })
                .collect();
            w.sort();
            w.dedup();
            join_alternatives(&w)
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    };
    if let Some((max_pos, words)) = attempts(rule, text) {
        if !words.is_empty() {
            pos = max_pos;
            expected = join_alternatives(&words);
        }
    }
    // Point at the token, not at the blanks before it.
    while text
        .as_bytes()
        .get(pos)
        .is_some_and(|b| *b == b' ' || *b == b'\t')
    {
        pos += 1;
    }
    let (found, end) = found_at(text, pos);
    Diag::new(
        "ir::syntax",
        format!("expected {expected}, found {found}"),
        pos..end.max(pos),
    )
    .label(format!("expected {expected}"))
    .help("the accepted LLVM IR subset is listed in the documentation of `regdesc_codegen`")
}
