//! The Lumen Supply world: customers, orders, a frozen calendar and a payment service with a fault
//! schedule. The tools answer any input truthfully and build every failure with the learner's
//! `fail`, which is passed in, so the world knows nothing of Python.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::lesson::{Lesson, Ticket, WorldData};

pub const PROCESS_REFUND: &str = "process_refund";
pub const LOOKUP_ORDERS: &str = "lookup_orders";
/// One order's details: what each subagent of the coordinator ticket calls.
pub const LOOKUP_ORDER: &str = "lookup_order";
/// The coordinator's tool: start a subagent that looks up one order.
pub const DELEGATE_LOOKUP: &str = "delegate_lookup";
/// The tools a ticket offers when it names none.
pub const DEFAULT_TOOLS: [&str; 2] = [PROCESS_REFUND, LOOKUP_ORDERS];

/// The failure builder: `fail(category, message)`, or why the learner's code could not answer.
pub type Fail<'a, E> = dyn FnMut(&str, &str) -> Result<Value, E> + 'a;

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian).
pub fn parse_date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// One run of one ticket: the world as that customer sees it, with its own fault schedule.
#[derive(Debug, Clone)]
pub struct World<'l> {
    data: &'l WorldData,
    customer: String,
    today: i64,
    /// Refund attempts that reach the payment service before it starts answering.
    payment_timeouts_left: u32,
    /// Lookups of an order that time out before the order service answers.
    lookup_timeouts_left: std::collections::BTreeMap<String, u32>,
    refunded: BTreeSet<String>,
}

impl<'l> World<'l> {
    pub fn for_ticket(lesson: &'l Lesson, ticket: &Ticket) -> World<'l> {
        World {
            data: &lesson.world,
            customer: ticket.customer.clone(),
            today: parse_date(&lesson.world.today).unwrap_or(0),
            payment_timeouts_left: ticket.payment_timeouts,
            lookup_timeouts_left: ticket.lookup_timeouts.clone(),
            refunded: BTreeSet::new(),
        }
    }

    /// A tool's definition, as the Messages API's `tools` list holds it.
    pub fn definition(name: &str) -> Option<Value> {
        let order_id = json!({
            "type": "object",
            "properties": {"order_id": {"type": "string", "description": "The four-digit order id, such as \"0871\"."}},
            "required": ["order_id"]
        });
        let (description, schema) = match name {
            PROCESS_REFUND => ("Refund one order of the customer in this conversation, to the card it was paid with. Fails with a structured error when the refund cannot be made.", order_id),
            LOOKUP_ORDERS => ("List the orders of the customer in this conversation, newest first.", json!({"type": "object", "properties": {}})),
            LOOKUP_ORDER => ("Show one order of the customer in this conversation: item, purchase date, total and where the parcel is.", order_id),
            DELEGATE_LOOKUP => ("Start a subagent that looks up one order of this customer and reports back: the order, or what failed, what it tried, what it has so far and what to do next. Start one per order; they run side by side.", order_id),
            _ => return None,
        };
        Some(json!({"name": name, "description": description, "input_schema": schema}))
    }

    /// The tools offered to the model for a ticket.
    pub fn tool_definitions(ticket: &Ticket) -> Value {
        let names: Vec<&str> = if ticket.tools.is_empty() {
            DEFAULT_TOOLS.to_vec()
        } else {
            ticket.tools.iter().map(String::as_str).collect()
        };
        Value::Array(names.into_iter().filter_map(World::definition).collect())
    }

    /// Run a tool by name. An unknown tool is a validation failure, as a real server would say.
    pub fn call<E>(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        match tool {
            PROCESS_REFUND => self.process_refund(input, fail),
            LOOKUP_ORDERS => self.lookup_orders(fail),
            LOOKUP_ORDER => self.lookup_order(input, fail),
            other => fail(
                "validation",
                &format!("There is no tool named {other}. The tools are {PROCESS_REFUND}, {LOOKUP_ORDERS} and {LOOKUP_ORDER}."),
            ),
        }
    }

    /// A message of the lesson's, with `{name}` fields filled in.
    pub fn message(&self, key: &str, fields: &[(&str, String)]) -> String {
        let mut text = self.data.messages.get(key).cloned().unwrap_or_else(|| key.to_string());
        for (name, value) in fields {
            text = text.replace(&format!("{{{name}}}"), value);
        }
        text
    }

    pub fn process_refund<E>(&mut self, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        let order_id = order.id.as_str();
        let id = || vec![("order_id", order_id.to_string())];
        if self.refunded.contains(order_id) {
            return fail("business", &self.message("already_refunded", &id()));
        }
        let age = self.today - parse_date(&order.purchased).unwrap_or(self.today);
        let window = self.data.refund_window_days;
        if age > window {
            let mut fields = id();
            fields.push(("age", age.to_string()));
            fields.push(("window", window.to_string()));
            return fail("business", &self.message("window_closed", &fields));
        }
        if self.payment_timeouts_left > 0 {
            self.payment_timeouts_left -= 1;
            return fail("transient", &self.message("payment_timeout", &id()));
        }
        self.refunded.insert(order_id.to_string());
        let mut fields = id();
        fields.push(("total", order.total.clone()));
        fields.push(("item", order.item.clone()));
        Ok(json!({
            "refunded": true,
            "order_id": order.id,
            "amount": order.total,
            "message": self.message("refunded", &fields),
        }))
    }

    /// The customer's order with this id, or the failure that says why not.
    fn own_order<E>(
        &self,
        input: &Value,
        fail: &mut Fail<'_, E>,
    ) -> Result<Result<&'l crate::lesson::Order, Value>, E> {
        let Some(order_id) = input.get("order_id").and_then(Value::as_str) else {
            return fail("validation", &self.message("missing_id", &[])).map(Err);
        };
        let id = || vec![("order_id", order_id.to_string())];
        if order_id.len() != 4 || !order_id.bytes().all(|b| b.is_ascii_digit()) {
            return fail("validation", &self.message("bad_id", &id())).map(Err);
        }
        let data: &'l WorldData = self.data;
        let Some(order) = data.orders.iter().find(|o| o.id == order_id) else {
            return fail("validation", &self.message("unknown_order", &id())).map(Err);
        };
        if order.customer != self.customer {
            return fail("permission", &self.message("not_yours", &id())).map(Err);
        }
        Ok(Ok(order))
    }

    pub fn lookup_order<E>(&mut self, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        if let Some(left) = self.lookup_timeouts_left.get_mut(&order.id).filter(|left| **left > 0) {
            *left -= 1;
            return fail("transient", &self.message("lookup_timeout", &[("order_id", order.id.clone())]));
        }
        Ok(json!({
            "order": {
                "order_id": order.id,
                "item": order.item,
                "purchased": order.purchased,
                "total": order.total,
                "status": order.status,
            }
        }))
    }

    pub fn lookup_orders<E>(&mut self, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let mut orders: Vec<_> = self.data.orders.iter().filter(|o| o.customer == self.customer).collect();
        if orders.is_empty() {
            return fail("empty", &self.message("no_orders", &[]));
        }
        orders.sort_by(|a, b| b.purchased.cmp(&a.purchased));
        let listed: Vec<Value> = orders
            .iter()
            .map(|o| {
                json!({
                    "order_id": o.id,
                    "item": o.item,
                    "purchased": o.purchased,
                    "days_ago": self.today - parse_date(&o.purchased).unwrap_or(self.today),
                    "total": o.total,
                    "refunded": self.refunded.contains(&o.id),
                })
            })
            .collect();
        Ok(json!({ "orders": listed }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2026-05-14").zip(parse_date("2025-09-17")).map(|(a, b)| a - b), Some(239));
        assert_eq!(parse_date("2026-13-01"), None);
        assert_eq!(parse_date("26-1-1"), None);
    }
}
