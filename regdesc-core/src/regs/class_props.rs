//! Allocation orders and the properties synthesized classes inherit.
//!
//! A defined class has the default order (its member list as written) and
//! one more per `AltOrders` entry; every register of an alternative order
//! must be a member. A synthesized class (`RC_with_sub`, `A_and_B`, ...)
//! takes, from its closest (last, smallest) super-class: the namespace, the
//! value types, `CopyCost`, `AltOrderSelect`, `AllocationPriority`, and
//! every allocation order with the registers it does not hold filtered out;
//! it is allocatable if any super-class is. Classes inherit in LLVM's enum
//! order, so properties flow down several levels.

use super::bank::Builder;
use super::sets::RecSet;
use super::*;

impl Builder<'_> {
    /// The `AltOrders` of defined class `def`, each checked against `members`.
    pub(super) fn alt_orders(
        &mut self,
        def: RecId,
        members: &[RegId],
        span: Option<Span>,
    ) -> Result<Vec<Vec<RegId>>, RegsError> {
        let Some(list) = self
            .rk
            .record(def)
            .get_list("AltOrders")
            .map(<[Init]>::to_vec)
        else {
            return Err(RegsError::field(
                self.rk,
                def,
                "AltOrders",
                "does not have a list initializer",
            ));
        };
        let mut orders = Vec::with_capacity(list.len());
        for order in &list {
            let mut set = RecSet::default();
            self.sets.evaluate(order, &mut set, span)?;
            let mut regs = Vec::with_capacity(set.len());
            for &e in &set.items {
                let Some(&r) = self.elem2reg.get(&e) else {
                    return Err(RegsError::Class {
                        message: format!(
                            "'{}' in an allocation order is not a register",
                            self.sets.name(e)
                        ),
                        span,
                    });
                };
                regs.push(r);
            }
            // LLVM checks from the back of the order.
            if let Some(&r) = regs
                .iter()
                .rev()
                .find(|r| members.binary_search(r).is_err())
            {
                return Err(RegsError::Class {
                    message: format!(
                        " AltOrder register {} is not a class member",
                        self.bank.reg(r).name
                    ),
                    span,
                });
            }
            orders.push(regs);
        }
        Ok(orders)
    }

    /// LLVM's `inheritProperties`, for every synthesized class in enum order.
    #[inline(never)]
    pub(super) fn inherit_properties(&mut self) {
        let order = self.bank.class_order.clone();
        for c in order {
            let classes = &self.bank.classes;
            let rc = &classes[c as usize];
            if rc.def.is_some() {
                continue;
            }
            let Some(&sup) = rc.super_classes.last() else {
                continue;
            };
            let s = &classes[sup as usize];
            let allocatable = rc
                .super_classes
                .iter()
                .any(|&x| classes[x as usize].allocatable);
            let keep = |o: &Vec<RegId>| -> Vec<RegId> {
                o.iter().copied().filter(|&r| rc.contains(r)).collect()
            };
            let order = keep(&s.order);
            let alt_orders: Vec<Vec<RegId>> = s.alt_orders.iter().map(keep).collect();
            let (namespace, value_types) = (s.namespace.clone(), s.value_types.clone());
            let (copy_cost, prio, select) = (
                s.copy_cost,
                s.allocation_priority,
                s.alt_order_select.clone(),
            );
            let rc = &mut self.bank.classes[c as usize];
            rc.namespace = namespace;
            rc.value_types = value_types;
            rc.copy_cost = copy_cost;
            rc.allocatable = allocatable;
            rc.alt_order_select = select;
            rc.allocation_priority = prio;
            rc.order = order;
            rc.alt_orders = alt_orders;
        }
    }
}
