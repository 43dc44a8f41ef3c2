//! The machine interpreter running lanes together: per-lane and scalar
//! registers, an execution mask set by a target instruction whose meaning
//! the target gives (`TargetSemantics::execute`), and a branch whose
//! condition differs between lanes refused until control flow is lowered.
//! The toy register file plays a wave: `R0..R3` (class `GPRLow`) are
//! scalar, the rest per lane.

mod mir_support;

use mir_support::{parse_one, toy};
use regdesc_codegen::interp::GlobalMemory;
use regdesc_codegen::mir::instr::{InstrDesc, OpKind};
use regdesc_codegen::mir::interp::{
    run_machine, Env, Flow, InterpError, MachineCx, TargetSemantics,
};
use regdesc_codegen::mir::{InstrSet, MInst, Sem};
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

struct Wave;

impl TargetSemantics for Wave {
    fn per_lane_class(&self, rc: RegClass) -> bool {
        rc != toy::classes::GPRLow
    }

    fn per_lane_reg(&self, r: Reg) -> bool {
        let name = toy::Toy.tables().name(r);
        !["R0", "R1", "R2", "R3"].contains(&name)
    }

    fn execute(&self, id: u16, _inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        match id {
            // SETEXEC imm: the execution mask.
            0 => {
                let m = cx.read(0, 0)?.to_u128() as u64;
                cx.set_exec(m);
                Ok(Flow::Next)
            }
            // LANEID %d: each active lane writes its number.
            1 => {
                for lane in 0..cx.lanes() {
                    if cx.exec() & (1 << lane) != 0 {
                        cx.write(
                            0,
                            lane,
                            regdesc_codegen::mir::interp::Bits::from_u128(32, lane.into()),
                        )?;
                    }
                }
                Ok(Flow::Next)
            }
            _ => Err(regdesc_codegen::mir::interp::err("unknown")),
        }
    }
}

fn instrs() -> InstrSet {
    let mut s = InstrSet::generic();
    s.add(InstrDesc::new("SETEXEC", 0, &[OpKind::Imm], Sem::Target(0)));
    s.add(InstrDesc::new("LANEID", 1, &[], Sem::Target(1)));
    s
}

fn env(lanes: u32) -> Env {
    Env {
        lanes,
        workitems: (0..lanes).collect(),
        workgroup_id: 0,
        workgroup_size: lanes,
        init: Vec::new(),
        args: (0..lanes).map(|l| vec![u128::from(l) * 10]).collect(),
        max_steps: 1000,
    }
}

#[test]
fn per_lane_and_scalar_registers_under_a_mask() {
    let is = instrs();
    let f = parse_one(
        "function @w {
bb.0:
  %0:GPRLow = MOVI 5
  %1:GPR = ARG 0
  %2:GPR = ADD %1, %0
  %3:GPR = LANEID
  SETEXEC 5
  %2:GPR = ADD %2, %3
  SETEXEC 15
  RET %2, %0
}
",
        &toy::Toy,
        &is,
    );
    let mut mem = GlobalMemory::new(0);
    let out =
        run_machine(&f, &toy::Toy, &is, &Wave, &env(4), &mut mem).unwrap_or_else(|e| panic!("{e}"));
    let lanes: Vec<u128> = out.results[0].iter().map(|b| b.to_u128()).collect();
    // Lanes 0 and 2 ran the masked add (x + 5 + lane), 1 and 3 kept x + 5.
    assert_eq!(lanes, vec![5, 15, 27, 35]);
    let scalar: Vec<u128> = out.results[1].iter().map(|b| b.to_u128()).collect();
    assert_eq!(scalar, vec![5; 4]);
}

#[test]
fn a_branch_on_a_per_lane_condition_needs_lowered_control_flow() {
    let is = instrs();
    let f = parse_one(
        "function @b {
bb.0:
  %0:GPR = LANEID
  BRCOND %0, %bb.1, %bb.2
bb.1:
  RET %0
bb.2:
  RET %0
}
",
        &toy::Toy,
        &is,
    );
    let mut mem = GlobalMemory::new(0);
    let e = run_machine(&f, &toy::Toy, &is, &Wave, &env(4), &mut mem).err();
    let msg = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("differs between active lanes"), "{msg}");
    // One lane at a time it runs.
    let ok = run_machine(&f, &toy::Toy, &is, &Wave, &env(1), &mut mem);
    assert!(ok.is_ok());
}
