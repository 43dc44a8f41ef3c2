//! `send`/`sends`: the messages to shared functions that IGC's kernels and
//! the back end's kernels use — the A64 stateless data-port messages on
//! global memory, the memory fence, and end of thread.
//!
//! Hardware facts served (Intel Graphics PRM, Gen9/Gen11/Gen12LP):
//! - **Operands** (Vol 2a "send", "sends"; Vol 7 "Messages"): the message
//!   payload is `mlen` GRFs from src0 followed (for `sends`, and Gen12's
//!   two-source `send`) by `ex_mlen` GRFs from src1; the response is `rlen`
//!   GRFs from dst. The shared function is ExDesc[3:0] (the SFID) on
//!   Gen9/Gen11 and the mnemonic's suffix (`send.dc1`) on Gen12; `ex_mlen`
//!   is ExDesc[10:6]; end of thread is ExDesc[5] on Gen9/Gen11 and the
//!   `{EOT}` option on Gen12 (IGA prints `{EOT}` on both).
//! - **Descriptor** (Vol 2d "Message Descriptor" common to the data ports):
//!   `mlen` [28:25], `rlen` [24:20], header present [19], message type
//!   [18:14], message-specific control [13:8], binding table index [7:0]
//!   (255: stateless, A64).
//! - **Data port 1** (SFID 0xC, Vol 2d "Data Port 1 message types"): type
//!   0x10 is *A64 Scattered Read*, 0x1A *A64 Scattered Write*. Their control
//!   field (Vol 2d "A64 Scattered Read/Write Message Descriptor"): [1:0] the
//!   subtype (0 byte, 1 dword, 2 qword), [3:2] for byte: the data size (1,
//!   2 or 4 bytes), for dword/qword: the elements per address (1, 2, 4,
//!   8), [4] SIMD mode (1: SIMD16, 0: SIMD8). IGA's decoder reads these
//!   fields the same way (it prints `a64 dword gathering read` with `rd:4`
//!   for `0x084415FF`), and the IGC test checks our decoding against IGA's.
//! - **Payload layout** (Vol 2d "A64 Scattered Read/Write Message"): one
//!   64-bit address per lane, lane-major (`SIMD * 8` bytes, so 2 or 4
//!   GRFs, no header); the data of a write follows, and a read returns,
//!   element-major: all lanes' element 0, then all lanes' element 1, one
//!   dword (byte and dword subtypes; a byte-sized element is the low bytes,
//!   returned zero-extended) or qword per lane.
//! - **Channel enables** (Vol 7 "Execution Mask"): a lane is accessed when
//!   its channel (`offset + lane`) is dispatched, or under NoMask.
//! - **Data port 0** (SFID 0xA) type 7 is the memory fence: the simulator
//!   runs sends in order, so it only writes its `rlen` response GRFs
//!   (zeros). **Thread spawner** (SFID 7) with EOT ends the thread.

use regdesc_codegen::interp::GlobalMemory;

use crate::regions::GRF_BYTES;
use crate::sim::exec::Thread;
use crate::sim::SimError;

/// The shared functions by their ExDesc[3:0] numbers.
pub const SFID_TS: u8 = 7;
pub const SFID_DC0: u8 = 0xA;
pub const SFID_DC1: u8 = 0xC;

/// Gen12 mnemonic suffixes (IGA) and their SFIDs.
pub const SFID_NAMES: [(&str, u8); 13] = [
    ("null", 0),
    ("smpl", 2),
    ("gtwy", 3),
    ("dc2", 4),
    ("rc", 5),
    ("urb", 6),
    ("ts", 7),
    ("vme", 8),
    ("dcro", 9),
    ("dc0", 0xA),
    ("pixi", 0xB),
    ("dc1", 0xC),
    ("cre", 0xD),
];

/// One `send`/`sends` instruction as IGA writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Send {
    pub exec: u8,
    pub offset: u8,
    pub nomask: bool,
    /// The response's first GRF (`None`: `null`).
    pub dst: Option<u8>,
    pub src0: u8,
    /// The second payload's first GRF (`sends`, Gen12 `send`).
    pub src1: Option<u8>,
    pub sfid: u8,
    pub ex_desc: u32,
    pub desc: u32,
    pub eot: bool,
    /// IGA's decoding in its `//` comment, when the line has one.
    pub note: Option<String>,
    /// The line as written.
    pub text: String,
}

/// What a descriptor asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// A64 scattered read (`write: false`) or write: `elems` elements of
    /// `bytes` bytes per address (`bytes` 1, 2 or 4 for the byte subtype
    /// with one element; 4 for dword, 8 for qword), `simd` lanes.
    A64Scattered {
        write: bool,
        subtype: Subtype,
        bytes: u32,
        elems: u32,
        simd: u32,
    },
    Fence,
    EndOfThread,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subtype {
    Byte,
    Dword,
    Qword,
}

/// The common descriptor fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    pub mlen: u32,
    pub rlen: u32,
    pub header: bool,
    pub msg_type: u32,
    pub ctrl: u32,
    pub bti: u32,
}

impl Desc {
    pub fn decode(desc: u32) -> Desc {
        Desc {
            mlen: (desc >> 25) & 0xF,
            rlen: (desc >> 20) & 0x1F,
            header: (desc >> 19) & 1 != 0,
            msg_type: (desc >> 14) & 0x1F,
            ctrl: (desc >> 8) & 0x3F,
            bti: desc & 0xFF,
        }
    }
}

impl Send {
    /// ExDesc[10:6]: the GRFs of the second payload.
    pub fn ex_mlen(&self) -> u32 {
        if self.src1.is_some() {
            (self.ex_desc >> 6) & 0x1F
        } else {
            0
        }
    }

    /// Decodes the message; `Err` names what is not simulated.
    pub fn message(&self) -> Result<Message, String> {
        let d = Desc::decode(self.desc);
        if self.eot {
            return if self.sfid == SFID_TS {
                Ok(Message::EndOfThread)
            } else {
                Err(format!("EOT on shared function {:#x}", self.sfid))
            };
        }
        match (self.sfid, d.msg_type) {
            (SFID_DC0, 7) => Ok(Message::Fence),
            (SFID_DC1, t @ (0x10 | 0x1A)) => {
                if d.header {
                    return Err("an A64 scattered message with a header".into());
                }
                let subtype = match d.ctrl & 3 {
                    0 => Subtype::Byte,
                    1 => Subtype::Dword,
                    2 => Subtype::Qword,
                    _ => return Err("A64 scattered subtype 3 (hword)".into()),
                };
                let size = (d.ctrl >> 2) & 3;
                let (bytes, elems) = match subtype {
                    Subtype::Byte if size < 3 => (1 << size, 1),
                    Subtype::Byte => return Err("byte scattered data size 3".into()),
                    Subtype::Dword => (4, 1 << size),
                    Subtype::Qword => (8, 1 << size),
                };
                let simd = if (d.ctrl >> 4) & 1 != 0 { 16 } else { 8 };
                Ok(Message::A64Scattered {
                    write: t == 0x1A,
                    subtype,
                    bytes,
                    elems,
                    simd,
                })
            }
            (sfid, t) => Err(format!(
                "message type {t:#x} of shared function {sfid:#x} (descriptor {:#010x})",
                self.desc
            )),
        }
    }
}

impl Message {
    /// IGA's name for the message (the text its disassembly comment
    /// carries), for checking the decoding against IGA's.
    pub fn iga_name(&self) -> String {
        match self {
            Message::A64Scattered {
                write,
                subtype,
                bytes,
                ..
            } => {
                let what = match subtype {
                    Subtype::Byte => "byte",
                    Subtype::Dword => "dword",
                    Subtype::Qword => "qword",
                };
                let _ = bytes;
                let how = if *write {
                    "scattering write"
                } else {
                    "gathering read"
                };
                format!("a64 {what} {how}")
            }
            Message::Fence => "fence".into(),
            Message::EndOfThread => "end of thread".into(),
        }
    }
}

/// What the thread does after a send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    End,
}

fn grf_bytes(t: &Thread, first: u8, n: u32) -> Vec<u8> {
    let start = usize::from(first) * GRF_BYTES as usize;
    let len = (n * GRF_BYTES) as usize;
    let mut out = vec![0u8; len];
    if let Some(s) = t.grf.get(start..start + len) {
        out.copy_from_slice(s);
    }
    out
}

/// Runs `s` on `t`, reading and writing `mem`.
pub fn execute(t: &mut Thread, s: &Send, mem: &mut GlobalMemory) -> Result<Flow, SimError> {
    let bad = |m: String| SimError::Exec {
        inst: s.text.clone(),
        message: m,
    };
    let msg = s
        .message()
        .map_err(|m| bad(format!("{m} is not simulated")))?;
    let d = Desc::decode(s.desc);
    match msg {
        Message::EndOfThread => Ok(Flow::End),
        Message::Fence => {
            if let Some(dst) = s.dst {
                for k in 0..d.rlen {
                    for w in 0..GRF_BYTES / 4 {
                        t.write_ud(((u32::from(dst) + k) * GRF_BYTES + 4 * w) as usize, 0);
                    }
                }
            }
            Ok(Flow::Continue)
        }
        Message::A64Scattered {
            write,
            subtype,
            bytes,
            elems,
            simd,
        } => {
            if u32::from(s.exec) != simd {
                return Err(bad(format!(
                    "a SIMD{simd} message at execution size {}",
                    s.exec
                )));
            }
            let slot = if subtype == Subtype::Qword { 8 } else { 4 };
            let addr_grfs = simd * 8 / GRF_BYTES;
            let data_grfs = (simd * slot * elems).div_ceil(GRF_BYTES);
            let (want_m, want_r) = if write {
                (addr_grfs + data_grfs, 0)
            } else {
                (addr_grfs, data_grfs)
            };
            if d.mlen + s.ex_mlen() != want_m || d.rlen != want_r {
                return Err(bad(format!(
                    "the descriptor's lengths (mlen {} + {}, rlen {}) do not fit the message (payload {want_m}, response {want_r})",
                    d.mlen,
                    s.ex_mlen(),
                    d.rlen
                )));
            }
            let mut payload = grf_bytes(t, s.src0, d.mlen);
            if let Some(src1) = s.src1 {
                payload.extend(grf_bytes(t, src1, s.ex_mlen()));
            }
            let data_at = (simd * 8) as usize;
            let dst = s.dst;
            for lane in 0..simd {
                let channel = u32::from(s.offset) + lane;
                if !(s.nomask || (t.dmask >> channel) & 1 != 0) {
                    continue;
                }
                let a = 8 * lane as usize;
                let mut ab = [0u8; 8];
                ab.copy_from_slice(&payload[a..a + 8]);
                let addr = u64::from_le_bytes(ab);
                for e in 0..elems {
                    let at = addr.wrapping_add(u64::from(e * bytes));
                    let pos = ((e * simd + lane) * slot) as usize;
                    let fault = |f: regdesc_codegen::interp::Fault| {
                        bad(format!("lane {channel}: {}", f.describe().message))
                    };
                    if write {
                        let from = data_at + pos;
                        mem.write_bytes(at, &payload[from..from + bytes as usize])
                            .map_err(fault)?;
                    } else {
                        let got = mem.read_bytes(at, u64::from(bytes)).map_err(fault)?;
                        let mut v = [0u8; 8];
                        v[..bytes as usize].copy_from_slice(got);
                        let Some(dst) = dst else { continue };
                        let byte = usize::from(dst) * GRF_BYTES as usize + pos;
                        if let Some(out) = t.grf.get_mut(byte..byte + slot as usize) {
                            out.copy_from_slice(&v[..slot as usize]);
                        }
                    }
                }
            }
            Ok(Flow::Continue)
        }
    }
}
