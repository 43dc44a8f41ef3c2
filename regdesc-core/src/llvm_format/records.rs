//! `llvm-tblgen --print-records`: every class, then every def, sorted by
//! name, each with its template arguments, superclasses and fields.

use super::CHUNK;
use crate::eval::print::write_init;
use crate::eval::{FieldRef, InitKind, RecTy, Record, RecordKeeper};

fn write_val(rk: &RecordKeeper, v: &FieldRef<'_>, out: &mut String) {
    if v.nonconcrete_ok {
        out.push_str("field ");
    }
    // llvm-tblgen prints a string field holding a `[{...}]` value as `code`.
    match (&v.ty, &**v.value) {
        (RecTy::String, InitKind::String { code: true, .. }) => out.push_str("code"),
        _ => v.ty.write(rk, out),
    }
    out.push(' ');
    out.push_str(&v.name);
    out.push_str(" = ");
    write_init(rk, v.value, out);
}

fn write_record(rk: &RecordKeeper, r: &Record, out: &mut String) {
    out.push_str(&r.name);
    let targs: Vec<_> = r.fields.iter().filter(|v| v.is_template_arg).collect();
    if !targs.is_empty() {
        out.push('<');
        for (k, v) in targs.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            write_val(rk, v, out);
        }
        out.push('>');
    }
    out.push_str(" {");
    if !r.superclasses.is_empty() {
        out.push_str("\t//");
        for sc in &r.superclasses {
            out.push(' ');
            out.push_str(rk.name(*sc));
        }
    }
    out.push('\n');
    for pass in [true, false] {
        for v in r.fields.iter() {
            if v.nonconcrete_ok == pass && !v.is_template_arg {
                out.push_str("  ");
                write_val(rk, &v, out);
                out.push_str(";\n");
            }
        }
    }
    out.push_str("}\n");
}

/// Prints every class, then every def, sorted by name.
pub fn print_records(rk: &RecordKeeper) -> String {
    let mut out = Vec::with_capacity(1 << 20);
    // Writing into a vector cannot fail.
    let _ = write_records(rk, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`print_records`] streamed into `out` as it is produced: records are
/// formatted into one reused buffer of about [`CHUNK`] bytes, which goes
/// out whenever it is full, so no whole-output string is ever built (the
/// output of a full target such as AMDGPU is 140 MB).
pub fn write_records<W: std::io::Write>(rk: &RecordKeeper, out: &mut W) -> std::io::Result<()> {
    let mut buf = String::with_capacity(CHUNK + (CHUNK >> 2));
    buf.push_str("------------- Classes -----------------\n");
    for &id in rk.classes.values() {
        buf.push_str("class ");
        write_record(rk, rk.record(id), &mut buf);
        flush_full(&mut buf, out)?;
    }
    buf.push_str("------------- Defs -----------------\n");
    for id in rk.defs() {
        buf.push_str("def ");
        write_record(rk, rk.record(id), &mut buf);
        flush_full(&mut buf, out)?;
    }
    out.write_all(buf.as_bytes())
}

/// Writes `buf` out once it holds a chunk.
fn flush_full<W: std::io::Write>(buf: &mut String, out: &mut W) -> std::io::Result<()> {
    if buf.len() >= CHUNK {
        out.write_all(buf.as_bytes())?;
        buf.clear();
    }
    Ok(())
}
