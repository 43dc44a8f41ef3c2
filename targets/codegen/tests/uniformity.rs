//! Uniformity analysis: sources, data dependence, sync dependence at the
//! joins of divergent branches, uniform loops, and temporal divergence
//! after loops with divergent exits.

use regdesc_codegen::ir::Function;
use regdesc_codegen::read_module;
use regdesc_codegen::uniformity::{Reason, Uniformity};

fn analyze(text: &str) -> (Function, Uniformity) {
    let m = read_module("t.ll", text).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let f = m.functions.into_iter().next().expect("a function");
    let u = Uniformity::analyze(&f);
    (f, u)
}

fn divergent(f: &Function, u: &Uniformity, name: &str) -> bool {
    let v = f
        .value_ids()
        .find(|v| f.value(*v).name == name)
        .unwrap_or_else(|| panic!("no %{name}"));
    u.is_divergent(v)
}

fn assert_split(f: &Function, u: &Uniformity, uniform: &[&str], div: &[&str]) {
    for n in uniform {
        assert!(!divergent(f, u, n), "%{n} should be uniform");
    }
    for n in div {
        assert!(divergent(f, u, n), "%{n} should be divergent");
    }
}

const DIAMOND: &str = "
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %k, i1 %uc) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %c = icmp ult i32 %id, %k
  br i1 %c, label %then, label %else
then:
  %t = add i32 %k, 1
  br label %join
else:
  %e = mul i32 %k, 3
  br label %join
join:
  %p = phi i32 [ %t, %then ], [ %e, %else ]
  %same = phi i32 [ %wg, %then ], [ %wg, %else ]
  %u = add i32 %k, %same
  br i1 %uc, label %a, label %b
a:
  br label %m
b:
  br label %m
m:
  %q = phi i32 [ 1, %a ], [ 2, %b ]
  ret void
}
";

#[test]
fn divergent_branch_makes_join_phis_divergent() {
    let (f, u) = analyze(DIAMOND);
    // Kernel arguments, workgroup ids and values computed in the arms from
    // them are uniform; the phi at the join of the divergent branch is not.
    assert_split(
        &f,
        &u,
        &["out", "k", "uc", "wg", "t", "e", "same", "u", "q"],
        &["id", "c", "p"],
    );
    assert_eq!(u.divergent_branches().len(), 1);
    let entry = f.entry();
    assert!(u.has_divergent_branch(entry));
    let join = f
        .block_ids()
        .find(|b| f.block(*b).name == "join")
        .expect("join");
    assert_eq!(u.join_of(join), Some(entry));
    let p = f.value_ids().find(|v| f.value(*v).name == "p").expect("p");
    assert_eq!(u.value_reason(p), Some(Reason::Join { branch: entry }));
}

#[test]
fn only_blocks_reached_by_disjoint_paths_are_joins() {
    // A uniform diamond nested in one arm of a divergent branch: its join
    // is reached through one successor only, so its phi stays uniform; the
    // outer join is a join point.
    let (f, u) = analyze(
        "define amdgpu_kernel void @k(i32 %k, i1 %uc) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %id, 0
  br i1 %c, label %s1, label %s2
s1:
  br i1 %uc, label %a1, label %a2
a1:
  br label %inner
a2:
  br label %inner
inner:
  %in = phi i32 [ 1, %a1 ], [ %k, %a2 ]
  br label %outer
s2:
  br label %outer
outer:
  %out = phi i32 [ %in, %inner ], [ 7, %s2 ]
  ret void
}
",
    );
    assert_split(&f, &u, &["in"], &["out"]);
}

#[test]
fn plain_function_arguments_and_global_id_are_divergent() {
    let (f, u) = analyze(
        "define i64 @f(i64 %a) {
  %g = call i64 @_Z13get_global_idj(i32 0)
  %w = call i32 @llvm.amdgcn.workgroup.id.x()
  %s = add i64 %a, %g
  ret i64 %s
}
",
    );
    assert_split(&f, &u, &["w"], &["a", "g", "s"]);
}

#[test]
fn loads_follow_their_address() {
    let (f, u) = analyze(
        "define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %u = load i32, ptr addrspace(1) %p
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %id
  %d = load i32, ptr addrspace(1) %q
  ret void
}
",
    );
    assert_split(&f, &u, &["u"], &["q", "d"]);
}

const UNIFORM_LOOP: &str = "
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %d = phi i32 [ 0, %entry ], [ %d.next, %loop ]
  %s.next = add i32 %s, %i
  %d.next = add i32 %d, %id
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %after = add i32 %s.next, %i.next
  %mix = add i32 %after, %d.next
  ret void
}
";

#[test]
fn uniform_loops_stay_uniform() {
    let (f, u) = analyze(UNIFORM_LOOP);
    // The trip count is uniform: the counter, the uniform accumulator and
    // their uses after the loop are uniform; only what depends on the
    // work-item id is divergent, and the loop has no divergent exit.
    assert_split(
        &f,
        &u,
        &["i", "s", "s.next", "i.next", "more", "after"],
        &["id", "d", "d.next", "mix"],
    );
    assert!(u.divergent_branches().is_empty());
    assert!(u.divergent_exit_cycles().is_empty());
}

const DIVERGENT_EXIT: &str = "
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x = mul i32 %i, %n
  %i.next = add i32 %i, 1
  %stop = icmp uge i32 %i, %id
  br i1 %stop, label %exit, label %loop
exit:
  %x.lcssa = phi i32 [ %x, %loop ]
  %after = add i32 %i.next, 1
  %flag = icmp eq i32 %x.lcssa, 0
  %unrelated = add i32 %n, 1
  br i1 %flag, label %zero, label %done
zero:
  br label %done
done:
  %v = phi i32 [ 1, %zero ], [ %after, %exit ]
  ret void
}
";

#[test]
fn divergent_loop_exit_makes_values_used_after_the_loop_divergent() {
    let (f, u) = analyze(DIVERGENT_EXIT);
    // Inside the loop the counter is uniform (all active lanes agree in
    // each iteration), but lanes leave in different iterations: every use
    // after the loop of a value defined in it is divergent, and so is a
    // branch on such a value, making the phi at its join divergent.
    assert_split(
        &f,
        &u,
        &["i", "x", "i.next", "unrelated"],
        &["stop", "x.lcssa", "after", "flag", "v"],
    );
    let header = f
        .block_ids()
        .find(|b| f.block(*b).name == "loop")
        .expect("loop");
    assert_eq!(u.divergent_exit_cycles(), vec![header]);
    let after = f
        .value_ids()
        .find(|v| f.value(*v).name == "after")
        .expect("after");
    assert!(
        matches!(u.value_reason(after), Some(Reason::Temporal { header: h, .. }) if h == header)
    );
    assert_eq!(u.divergent_branches().len(), 2);
}

#[test]
fn divergent_exit_of_an_inner_loop_leaves_the_outer_loop_uniform() {
    let (f, u) = analyze(
        "define amdgpu_kernel void @k(i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %outer
outer:
  %o = phi i32 [ 0, %entry ], [ %o.next, %latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %c = icmp ult i32 %j, %id
  br i1 %c, label %inner, label %latch
latch:
  %jj = add i32 %j.next, 0
  %o.next = add i32 %o, 1
  %more = icmp ult i32 %o.next, %n
  br i1 %more, label %outer, label %exit
exit:
  %r = add i32 %o.next, 1
  ret void
}
",
    );
    assert_split(
        &f,
        &u,
        &["o", "o.next", "more", "r", "j", "j.next"],
        &["c", "jj"],
    );
    let inner = f
        .block_ids()
        .find(|b| f.block(*b).name == "inner")
        .expect("inner");
    assert_eq!(u.divergent_exit_cycles(), vec![inner]);
}

#[test]
fn divergent_branch_inside_a_loop_that_reconverges_in_the_loop() {
    // The divergent branch rejoins at the latch, inside the loop: the latch
    // phi is divergent, but no lane leaves early, so the counter's uses
    // after the loop are uniform.
    let (f, u) = analyze(
        "define amdgpu_kernel void @k(i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp eq i32 %i, %id
  br i1 %c, label %a, label %latch
a:
  br label %latch
latch:
  %p = phi i32 [ 1, %a ], [ 0, %loop ]
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = add i32 %i.next, 0
  ret void
}
",
    );
    assert_split(&f, &u, &["i", "i.next", "r"], &["c", "p"]);
    assert!(u.divergent_exit_cycles().is_empty());
}

#[test]
fn irreducible_cycle_entered_divergently_has_divergent_header_phis() {
    let (f, u) = analyze(
        "define amdgpu_kernel void @k(i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %id, 0
  br i1 %c, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %y1, %b ]
  %x1 = add i32 %x, 1
  %ca = icmp ult i32 %x1, %n
  br i1 %ca, label %b, label %exit
b:
  %y = phi i32 [ 5, %entry ], [ %x1, %a ]
  %y1 = add i32 %y, 2
  %cb = icmp ult i32 %y1, %n
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %x1, %a ], [ %y1, %b ]
  ret void
}
",
    );
    assert_split(&f, &u, &[], &["x", "y", "x1", "y1", "r"]);
}

#[test]
fn the_fixture_kernels_have_the_expected_uniformity() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/uniformity.ll");
    let text = std::fs::read_to_string(path).expect("fixture");
    let m = read_module("uniformity.ll", &text).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let get = |n: &str| m.function(n).expect("function");
    let d = get("diamond");
    let u = Uniformity::analyze(d);
    assert_split(d, &u, &["t", "e", "same", "u"], &["p", "r"]);
    let l = get("uniform_loop");
    let u = Uniformity::analyze(l);
    assert_split(l, &u, &["i", "s", "s.next"], &["d.next", "sum"]);
    let x = get("divergent_exit");
    let u = Uniformity::analyze(x);
    assert_split(x, &u, &["i", "x"], &["x.lcssa", "after", "flag", "v"]);
}
