//! [`Membership`]: which register classes hold each register, with the
//! registers grouped by that list of classes.
//!
//! Class inference asks, for the sub-registers of a class's members, which
//! classes hold them. Registers of one kind (all 32-bit VGPRs, say) are held
//! by the same classes, so the answer is kept once per group of registers
//! with the same list: a question about `n` registers costs `n` lookups of a
//! group and one walk of each group's list. The groups are refined as
//! classes are added (the members of a new class leave their group for a
//! child group whose list ends with the new class), so a group's list never
//! changes once made.

use super::{ClassId, RegId};

#[derive(Debug)]
pub(super) struct Membership {
    /// The group of each register.
    group_of: Vec<u32>,
    /// The classes of each group, in increasing order.
    classes: Vec<Vec<ClassId>>,
    /// For each group, the class being added when it was last split and
    /// the child group its registers moved to (`u32::MAX`: none yet).
    split: Vec<(ClassId, u32)>,
}

impl Membership {
    /// `nregs` registers, in no class.
    pub(super) fn new(nregs: usize) -> Membership {
        Membership {
            group_of: vec![0; nregs],
            classes: vec![Vec::new()],
            split: vec![(ClassId::MAX, u32::MAX)],
        }
    }

    /// Adds class `c` (numbered above every class added so far) holding
    /// `members` (without duplicates).
    pub(super) fn add_class(&mut self, c: ClassId, members: &[RegId]) {
        for &r in members {
            let g = self.group_of[r as usize] as usize;
            let child = match self.split[g] {
                (last, child) if last == c => child,
                _ => {
                    let child = self.classes.len() as u32;
                    let mut list = Vec::with_capacity(self.classes[g].len() + 1);
                    list.extend_from_slice(&self.classes[g]);
                    list.push(c);
                    self.classes.push(list);
                    self.split.push((ClassId::MAX, u32::MAX));
                    self.split[g] = (c, child);
                    child
                }
            };
            self.group_of[r as usize] = child;
        }
    }

    /// The group of register `r`.
    #[inline]
    pub(super) fn group(&self, r: RegId) -> u32 {
        self.group_of[r as usize]
    }

    /// The classes holding the registers of group `g`, in increasing order.
    #[inline]
    pub(super) fn classes(&self, g: u32) -> &[ClassId] {
        &self.classes[g as usize]
    }

    /// How many groups there are (group numbers are below this).
    pub(super) fn num_groups(&self) -> usize {
        self.classes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Membership;

    #[test]
    fn groups_follow_classes() {
        let mut m = Membership::new(6);
        m.add_class(0, &[0, 1, 2, 3]);
        m.add_class(1, &[2, 3, 4]);
        m.add_class(2, &[3]);
        let list = |r| m.classes(m.group(r)).to_vec();
        assert_eq!(list(0), vec![0]);
        assert_eq!(list(1), vec![0]);
        assert_eq!(list(2), vec![0, 1]);
        assert_eq!(list(3), vec![0, 1, 2]);
        assert_eq!(list(4), vec![1]);
        assert_eq!(list(5), Vec::<u32>::new());
        assert_eq!(m.group(0), m.group(1));
        assert_ne!(m.group(2), m.group(3));
    }
}
