//! Running a compiled OpenCL kernel (IGC's, through `ocloc`, or the back
//! end's) with the thread payload the runtime gives it, as `ocloc` reports
//! it in the kernel's zeInfo (`ocloc compile --format zebin`, section
//! `.ze_info`).
//!
//! Hardware/runtime facts served:
//! - **r0** (PRM Vol 7 "GPGPU Thread Payload", R0 header): dword 1 is the
//!   work-group id X, dwords 6 and 7 the ids Y and Z. The simulator writes
//!   those; the other header fields (FFTID, barrier id, scratch offset)
//!   only matter to messages it does not run (IGC copies r0 into the
//!   end-of-thread and fence payloads, whose contents it ignores).
//! - **Per-thread data**, from r1: zeInfo's `per_thread_payload_arguments`.
//!   `local_id` (offset 0, `size` bytes) holds the X ids of the thread's
//!   lanes as `uw`, then the Y ids, then the Z ids, each `size / 3` bytes
//!   (one GRF per 16 lanes: SIMD32 has 192 bytes, `r1`..`r6`; IGC's code
//!   reads X as `r1.0<16;16,1>:uw` and `r2.0<16;16,1>:uw`).
//! - **Cross-thread data**, from the GRF after the per-thread data (`r7`
//!   for SIMD32): zeInfo's `payload_arguments`, each at its `offset`:
//!   `global_id_offset`, `local_size` and `enqueued_local_size` (three
//!   dwords), `arg_bypointer` with `addrmode: stateless` (the buffer's
//!   64-bit address), `arg_byvalue` (the argument's bytes). Stateful
//!   entries (`addrmode: stateful`, size 0) take no payload space.
//! - **Dispatch**: a work-group of `local` work-items runs as
//!   `ceil(local / simd)` threads; thread `k` has local ids `k * simd + lane`
//!   and only its lanes below `local` dispatched (the execution mask).
//!
//! The layout is read from the zeInfo text at run time, never assumed.

use std::collections::BTreeMap;

use regdesc_codegen::interp::GlobalMemory;

use crate::regions::GRF_BYTES;
use crate::sim::{run_program, SimError, Stmt, Thread};

/// One entry of `payload_arguments`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadArg {
    GlobalIdOffset {
        offset: u32,
    },
    LocalSize {
        offset: u32,
    },
    EnqueuedLocalSize {
        offset: u32,
    },
    /// A stateless buffer argument: its 64-bit address.
    Pointer {
        index: u32,
        offset: u32,
        size: u32,
    },
    /// A by-value argument's bytes.
    Value {
        index: u32,
        offset: u32,
        size: u32,
    },
}

/// What the simulator needs of a kernel's zeInfo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    pub simd: u32,
    pub args: Vec<PayloadArg>,
    /// `local_id`'s size in bytes (per-thread data from r1).
    pub local_id_bytes: u32,
}

fn payload_err(m: impl Into<String>) -> SimError {
    SimError::Payload(m.into())
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// The lines under `key:` (more indented than it), from `lines`.
fn section<'a>(lines: &[&'a str], key: &str) -> Option<Vec<&'a str>> {
    let k = lines.iter().position(|l| {
        let t = l.trim_start().trim_start_matches("- ");
        t.strip_prefix(key)
            .is_some_and(|r| r.trim_start().starts_with(':'))
    })?;
    let base = indent(lines[k]);
    Some(
        lines[k + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || indent(l) > base)
            .copied()
            .collect(),
    )
}

fn key_value(l: &str) -> Option<(String, String)> {
    let t = l.trim().trim_start_matches("- ");
    let (k, v) = t.split_once(':')?;
    let v = v.trim().trim_matches('\'').to_string();
    Some((k.trim().to_string(), v))
}

/// A YAML list of flat maps (`- a: 1` / `  b: 2` / `- a: 3`).
fn list_of_maps(lines: &[&str]) -> Vec<BTreeMap<String, String>> {
    let mut out: Vec<BTreeMap<String, String>> = Vec::new();
    for l in lines {
        if l.trim_start().starts_with("- ") {
            out.push(BTreeMap::new());
        }
        if let (Some(m), Some((k, v))) = (out.last_mut(), key_value(l)) {
            m.insert(k, v);
        }
    }
    out
}

fn num(m: &BTreeMap<String, String>, k: &str) -> Result<u32, SimError> {
    m.get(k)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| payload_err(format!("zeInfo entry {m:?} has no number `{k}`")))
}

impl KernelInfo {
    /// Reads kernel `name`'s entry of a `.ze_info` text.
    pub fn from_ze_info(text: &str, name: &str) -> Result<KernelInfo, SimError> {
        let lines: Vec<&str> = text.lines().collect();
        let kernels =
            section(&lines, "kernels").ok_or_else(|| payload_err("zeInfo has no `kernels:`"))?;
        // The kernel's block: from its `- name: NAME` to the next item.
        let start = kernels
            .iter()
            .position(|l| {
                l.trim_start().starts_with("- ")
                    && key_value(l) == Some(("name".into(), name.into()))
            })
            .ok_or_else(|| payload_err(format!("zeInfo has no kernel `{name}`")))?;
        let item_indent = indent(kernels[start]);
        let block: Vec<&str> = std::iter::once(kernels[start])
            .chain(
                kernels[start + 1..]
                    .iter()
                    .take_while(|l| !(indent(l) == item_indent && l.trim_start().starts_with("- ")))
                    .copied(),
            )
            .collect();
        let env = section(&block, "execution_env")
            .ok_or_else(|| payload_err("zeInfo kernel without `execution_env`"))?;
        let env: BTreeMap<String, String> = env.iter().filter_map(|l| key_value(l)).collect();
        let simd = num(&env, "simd_size")?;
        if !matches!(simd, 8 | 16 | 32) {
            return Err(payload_err(format!("SIMD{simd}")));
        }
        let mut args = Vec::new();
        for m in list_of_maps(&section(&block, "payload_arguments").unwrap_or_default()) {
            let ty = m.get("arg_type").map(String::as_str).unwrap_or("");
            let offset = num(&m, "offset")?;
            let size = num(&m, "size")?;
            let three = |what: &str| {
                if size == 12 {
                    Ok(())
                } else {
                    Err(payload_err(format!("{what} of {size} bytes")))
                }
            };
            match ty {
                "global_id_offset" => {
                    three(ty)?;
                    args.push(PayloadArg::GlobalIdOffset { offset });
                }
                "local_size" => {
                    three(ty)?;
                    args.push(PayloadArg::LocalSize { offset });
                }
                "enqueued_local_size" => {
                    three(ty)?;
                    args.push(PayloadArg::EnqueuedLocalSize { offset });
                }
                "arg_bypointer" => match m.get("addrmode").map(String::as_str) {
                    Some("stateful") if size == 0 => {}
                    Some("stateless") if size == 8 => args.push(PayloadArg::Pointer {
                        index: num(&m, "arg_index")?,
                        offset,
                        size,
                    }),
                    other => {
                        return Err(payload_err(format!(
                            "buffer argument with addrmode {other:?} and size {size}"
                        )))
                    }
                },
                "arg_byvalue" => args.push(PayloadArg::Value {
                    index: num(&m, "arg_index")?,
                    offset,
                    size,
                }),
                other => {
                    return Err(payload_err(format!(
                        "payload argument `{other}` is not simulated"
                    )))
                }
            }
        }
        let mut local_id_bytes = 0;
        for m in list_of_maps(&section(&block, "per_thread_payload_arguments").unwrap_or_default())
        {
            match m.get("arg_type").map(String::as_str) {
                Some("local_id") if num(&m, "offset")? == 0 => local_id_bytes = num(&m, "size")?,
                other => {
                    return Err(payload_err(format!(
                        "per-thread argument {other:?} is not simulated"
                    )))
                }
            }
        }
        if local_id_bytes % (3 * GRF_BYTES) != 0 || local_id_bytes / 3 < simd * 2 {
            return Err(payload_err(format!(
                "local_id of {local_id_bytes} bytes does not hold 3 x SIMD{simd} ids in whole GRFs"
            )));
        }
        Ok(KernelInfo {
            name: name.to_string(),
            simd,
            args,
            local_id_bytes,
        })
    }

    /// The first GRF of the cross-thread data.
    pub fn cross_thread_grf(&self) -> u32 {
        1 + self.local_id_bytes / GRF_BYTES
    }
}

/// A 1-D launch: `global` work-items in work-groups of `local`, the
/// kernel's arguments (one value per argument, by index: a pointer's
/// address or a by-value argument's little-endian bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub global: u32,
    pub local: u32,
    pub args: Vec<Vec<u8>>,
}

impl Dispatch {
    /// The threads of the launch: (group id, first local id, lanes).
    pub fn threads(&self, simd: u32) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        let groups = self.global.div_ceil(self.local.max(1));
        for g in 0..groups {
            let mut first = 0;
            while first < self.local {
                out.push((g, first, (self.local - first).min(simd)));
                first += simd;
            }
        }
        out
    }
}

/// Loads one thread's payload: r0, the local ids, the cross-thread data.
pub fn load_payload(
    t: &mut Thread,
    info: &KernelInfo,
    d: &Dispatch,
    group: u32,
    first_local: u32,
    lanes: u32,
) -> Result<(), SimError> {
    t.write_ud(4, group);
    t.write_ud(6 * 4, 0);
    t.write_ud(7 * 4, 0);
    let per_dim = (info.local_id_bytes / 3) as usize;
    for lane in 0..lanes {
        let x = (first_local + lane) as u16;
        let at = GRF_BYTES as usize + 2 * lane as usize;
        t.grf[at..at + 2].copy_from_slice(&x.to_le_bytes());
        for dim in 1..3 {
            let y = at + dim * per_dim;
            t.grf[y..y + 2].copy_from_slice(&0u16.to_le_bytes());
        }
    }
    let base = (info.cross_thread_grf() * GRF_BYTES) as usize;
    let put = |t: &mut Thread, off: u32, bytes: &[u8]| {
        let at = base + off as usize;
        match t.grf.get_mut(at..at + bytes.len()) {
            Some(s) => {
                s.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(payload_err("cross-thread data past r127")),
        }
    };
    let dims = |v: u32| {
        [v, 1, 1]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    for a in &info.args {
        match *a {
            PayloadArg::GlobalIdOffset { offset } => put(t, offset, &[0; 12])?,
            PayloadArg::LocalSize { offset } | PayloadArg::EnqueuedLocalSize { offset } => {
                put(t, offset, &dims(d.local))?
            }
            PayloadArg::Pointer {
                index,
                offset,
                size,
            }
            | PayloadArg::Value {
                index,
                offset,
                size,
            } => {
                let v = d
                    .args
                    .get(index as usize)
                    .ok_or_else(|| payload_err(format!("no value for argument {index}")))?;
                if v.len() != size as usize {
                    return Err(payload_err(format!(
                        "argument {index} has {} bytes, the payload {size}",
                        v.len()
                    )));
                }
                put(t, offset, v)?
            }
        }
    }
    Ok(())
}

/// Runs every thread of `d` over `prog` (the kernel's code) on `mem`.
pub fn run_kernel(
    prog: &[Stmt],
    info: &KernelInfo,
    d: &Dispatch,
    mem: &mut GlobalMemory,
    max_steps: u64,
) -> Result<(), SimError> {
    for (group, first, lanes) in d.threads(info.simd) {
        let mask = if lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        let mut t = Thread::new(mask);
        load_payload(&mut t, info, d, group, first, lanes)?;
        run_program(&mut t, prog, mem, max_steps)?;
    }
    Ok(())
}
