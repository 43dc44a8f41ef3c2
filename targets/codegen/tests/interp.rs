//! The interpreter's API and its refusals: where LLVM's result would be
//! poison or undefined, the run stops with an error located at the
//! instruction instead of inventing a value.

use regdesc_codegen::interp::{self, ExecError, GlobalMemory, LaneArg, LaneResult, Launch};
use regdesc_codegen::read_module;
use regdesc_codegen::value::Value;

fn run(text: &str, launch: &Launch, mem: &mut GlobalMemory) -> Result<Vec<LaneResult>, ExecError> {
    let m = read_module("t.ll", text).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let f = &m.functions[0];
    interp::run(f, launch, mem)
}

fn err_at(text: &str, args: Vec<Value>) -> (String, String) {
    let mut mem = GlobalMemory::new(16);
    let e = run(text, &Launch::single(args), &mut mem).expect_err("must stop");
    let span = e.span.clone().expect("located");
    (e.message, text[span].to_string())
}

#[test]
fn poison_is_reported_at_the_instruction() {
    let cases: &[(&str, Vec<Value>, &str, &str)] = &[
        (
            "define i32 @f(i32 %a, i32 %n) {\n  %s = lshr i32 %a, %n\n  ret i32 %s\n}\n",
            vec![Value::int(32, 1), Value::int(32, 40)],
            "shifting by the width or more is poison",
            "%s = lshr i32 %a, %n",
        ),
        (
            "define i8 @f(i8 %a) {\n  %s = add nsw i8 %a, 1\n  ret i8 %s\n}\n",
            vec![Value::int(8, 127)],
            "`nsw` overflows",
            "%s = add nsw i8 %a, 1",
        ),
        (
            "define i128 @f(i128 %a) {\n  %s = mul nuw i128 %a, %a\n  ret i128 %s\n}\n",
            vec![Value::int(128, 1 << 64)],
            "`nuw` overflows",
            "%s = mul nuw i128 %a, %a",
        ),
        (
            "define i16 @f(i16 %a) {\n  %s = ashr exact i16 %a, 1\n  ret i16 %s\n}\n",
            vec![Value::int(16, 3)],
            "`exact` shifts out a set bit",
            "%s = ashr exact i16 %a, 1",
        ),
        (
            "define i16 @f(<2 x i16> %v, i32 %i) {\n  %e = extractelement <2 x i16> %v, i32 %i\n  ret i16 %e\n}\n",
            vec![Value::zero(regdesc_codegen::ir::Type::Vec2(regdesc_codegen::ir::Scalar::Int(16))).expect("zero"), Value::int(32, 2)],
            "vector index 2 is out of range",
            "%e = extractelement <2 x i16> %v, i32 %i",
        ),
        (
            "define float @f(float %a) {\n  %s = fadd nnan float %a, %a\n  ret float %s\n}\n",
            vec![Value::Float(f32::NAN)],
            "`nnan` meets a NaN",
            "%s = fadd nnan float %a, %a",
        ),
        (
            "define i32 @f(ptr addrspace(1) %p) {\n  %v = load i32, ptr addrspace(1) %p\n  ret i32 %v\n}\n",
            vec![Value::Ptr(14)],
            "outside global memory (16 bytes)",
            "%v = load i32, ptr addrspace(1) %p",
        ),
    ];
    for (text, args, message, at) in cases {
        let (m, span) = err_at(text, args.clone());
        assert!(m.contains(message), "{m}");
        assert_eq!(&span, at);
    }
}

#[test]
fn lanes_share_memory_and_see_their_ids() {
    let text = "define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %g = call i64 @_Z13get_global_idj(i32 0)
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  %v = add i32 %id, %x
  store i32 %v, ptr addrspace(1) %p
  %q = getelementptr i64, ptr addrspace(1) %out, i64 4
  %old = load i64, ptr addrspace(1) %q
  %sum = add i64 %old, %g
  store i64 %sum, ptr addrspace(1) %q
  ret void
}
";
    let mut launch = Launch::lanes(
        4,
        vec![
            LaneArg::Uniform(Value::Ptr(0)),
            LaneArg::PerLane((0..4).map(|k| Value::int(32, 10 * k)).collect()),
        ],
    );
    launch.workgroup_id = 3;
    let mut mem = GlobalMemory::new(48);
    let r = run(text, &launch, &mut mem).expect("runs");
    assert_eq!(r.len(), 4);
    assert_eq!(
        r.iter().map(|l| l.workitem_id).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    assert!(r.iter().all(|l| l.ret.is_none() && l.steps == 11));
    for k in 0..4u64 {
        assert_eq!(
            mem.load(regdesc_codegen::ir::Type::Int(32), 4 * k),
            Ok(Value::int(32, 11 * k as i128))
        );
    }
    // get_global_id = 3 * 4 + id, summed over the lanes.
    assert_eq!(
        mem.load(regdesc_codegen::ir::Type::Int(64), 32),
        Ok(Value::int(64, 12 + 13 + 14 + 15))
    );
}

#[test]
fn bad_launches_are_errors_not_panics() {
    let text = "define i32 @f(i32 %a) {\n  ret i32 %a\n}\n";
    let mut mem = GlobalMemory::new(0);
    let e = run(text, &Launch::single(vec![]), &mut mem).expect_err("arity");
    assert!(e.message.contains("takes 1 argument, 0 given"));
    let e = run(text, &Launch::single(vec![Value::int(64, 1)]), &mut mem).expect_err("type");
    assert!(e.message.contains("has type `i32`"));
    let launch = Launch::lanes(3, vec![LaneArg::PerLane(vec![Value::int(32, 1)])]);
    let e = run(text, &launch, &mut mem).expect_err("lanes");
    assert!(e.message.contains("no value for lane 1"));
    let spin = "define void @f() {\nentry:\n  br label %l\nl:\n  br label %l\n}\n";
    let mut launch = Launch::single(vec![]);
    launch.max_steps = 100;
    let e = run(spin, &launch, &mut mem).expect_err("steps");
    assert!(e.message.contains("more than 100 instructions"));
}
