//! The Lumen Supply world: customers, orders, a frozen calendar and a payment service with a fault
//! schedule. The tools answer any input truthfully and build every failure with the learner's
//! `fail`, which is passed in, so the world knows nothing of Python.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::lesson::{Lesson, Order, Ticket, Tool, WorldData};

/// The name lessons give this world in `setting`.
pub const NAME: &str = "lumen";

/// What a tool of this world can do; a lesson maps its tool names onto these.
pub const BEHAVIOURS: [&str; 5] = ["refund", "list_orders", "show_order", "find_refund", "delegate"];

/// A failure as the tool reports it, before the learner's code shapes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub category: String,
    pub message: String,
    /// The read that settles an uncertain outcome: `{"tool": ..., "input": {...}}`.
    pub verify: Option<Value>,
}

/// The failure builder: the learner's `fail`, or why their code could not answer.
pub type Fail<'a, E> = dyn FnMut(&Failure) -> Result<Value, E> + 'a;
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
    lesson: &'l Lesson,
    data: &'l WorldData,
    customer: String,
    today: i64,
    /// The payment service's faults still to come, one per refund that reaches it.
    payment_faults: std::collections::VecDeque<String>,
    /// Lookups of an order that time out before the order service answers.
    lookup_timeouts_left: BTreeMap<String, u32>,
    read_timeouts_left: u32,
    /// Refunds the shop knows it made (its ledger).
    confirmed: BTreeSet<String>,
    /// Money that actually moved, per order: the payment service's truth.
    paid: BTreeMap<String, u32>,
}

impl<'l> World<'l> {
    pub fn for_ticket(lesson: &'l Lesson, ticket: &Ticket) -> World<'l> {
        let data = &lesson.world;
        World {
            lesson,
            data,
            customer: ticket.customer.clone(),
            today: parse_date(&data.today).unwrap_or(0),
            payment_faults: ticket.payment_faults.iter().cloned().collect(),
            lookup_timeouts_left: ticket.lookup_timeouts.clone(),
            read_timeouts_left: ticket.read_timeouts,
            confirmed: data.orders.iter().filter(|o| o.refunded).map(|o| o.id.clone()).collect(),
            paid: BTreeMap::new(),
        }
    }

    /// Refunds paid in this run, per order.
    pub fn paid(&self) -> &BTreeMap<String, u32> {
        &self.paid
    }

    /// A tool's definition, as the Messages API's `tools` list holds it.
    pub fn definition(tool: &Tool, name: &str) -> Value {
        json!({"name": name, "description": tool.description.trim(), "input_schema": tool.input_schema})
    }

    /// Run a tool by name. An unknown tool is a validation failure, as a real server would say.
    pub fn call<E>(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let lesson: &'l Lesson = self.lesson;
        let Some(found) = lesson.tool(tool) else {
            let names: Vec<&str> = lesson.tools.iter().map(|t| t.name.as_str()).collect();
            return fail(&Failure {
                category: "validation".into(),
                message: format!("There is no tool named {tool}. The tools are {}.", names.join(", ")),
                verify: None,
            });
        };
        match found.does.as_str() {
            "refund" => self.process_refund(input, fail),
            "list_orders" => self.lookup_orders(fail),
            "find_refund" => self.find_refund(input, fail),
            // A subagent's task is run by the agent; called directly, it shows the order.
            _ => self.lookup_order(input, fail),
        }
    }

    /// A message of the lesson's, with `{name}` fields filled in.
    pub fn message(&self, key: &str, fields: &[(&str, String)]) -> String {
        fill(self.data.messages.get(key).map(String::as_str).unwrap_or(key), fields)
    }

    fn failure(&self, category: &str, key: &str, fields: &[(&str, String)]) -> Failure {
        Failure { category: category.into(), message: self.message(key, fields), verify: None }
    }

    pub fn process_refund<E>(&mut self, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        let order_id = order.id.as_str();
        // Every refund message may name the order, its item and its total.
        let id = || {
            vec![
                ("order_id", order_id.to_string()),
                ("item", order.item.clone()),
                ("total", order.total.clone()),
                ("amount", order.total.clone()),
            ]
        };
        if self.confirmed.contains(order_id) {
            return fail(&self.failure("business", "already_refunded", &id()));
        }
        let age = self.today - parse_date(&order.purchased).unwrap_or(self.today);
        let window = self.data.refund_window_days;
        if age > window {
            let mut fields = id();
            fields.push(("age", age.to_string()));
            fields.push(("window", window.to_string()));
            return fail(&self.failure("business", "window_closed", &fields));
        }
        if let Some(name) = self.payment_faults.pop_front() {
            if let Some(fault) = self.data.faults.get(&name) {
                if fault.paid {
                    *self.paid.entry(order_id.to_string()).or_default() += 1;
                }
                let mut failure = self.failure(&fault.category, &fault.message, &id());
                failure.verify =
                    fault.verify.as_ref().map(|read| json!({"tool": read, "input": {"order_id": order_id}}));
                return fail(&failure);
            }
        }
        *self.paid.entry(order_id.to_string()).or_default() += 1;
        self.confirmed.insert(order_id.to_string());
        let fields = id();
        Ok(json!({
            "refunded": true,
            "order_id": order.id,
            "amount": order.total,
            "message": self.message("refunded", &fields),
        }))
    }

    /// The payment service's own record: has money moved for this order? Safe to ask again.
    pub fn find_refund<E>(&mut self, input: &Value, fail: &mut Fail<'_, E>) -> Result<Value, E> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        let id = vec![("order_id", order.id.clone())];
        if self.read_timeouts_left > 0 {
            self.read_timeouts_left -= 1;
            return fail(&self.failure("transient", "read_timeout", &id));
        }
        let times = self.paid.get(&order.id).copied().unwrap_or(0) + u32::from(order.refunded);
        if times > 0 {
            // The read settles it: the shop's ledger now knows.
            self.confirmed.insert(order.id.clone());
        }
        let fields = [
            ("order_id", order.id.clone()),
            ("total", order.total.clone()),
            ("amount", order.total.clone()),
            ("item", order.item.clone()),
            ("times", times.to_string()),
        ];
        if times == 0 {
            // Nothing found is an answer, not a failure: the learner's code shapes it.
            return fail(&self.failure("empty", "refund_not_found", &fields));
        }
        Ok(json!({
            "found": true,
            "order_id": order.id,
            "refunds": times,
            "message": self.message("refund_found", &fields),
        }))
    }

    /// The customer's order with this id, or the failure that says why not.
    fn own_order<E>(&self, input: &Value, fail: &mut Fail<'_, E>) -> Result<Result<&'l Order, Value>, E> {
        let Some(order_id) = input.get("order_id").and_then(Value::as_str) else {
            return fail(&self.failure("validation", "missing_id", &[])).map(Err);
        };
        let id = || vec![("order_id", order_id.to_string())];
        if order_id.len() != 4 || !order_id.bytes().all(|b| b.is_ascii_digit()) {
            return fail(&self.failure("validation", "bad_id", &id())).map(Err);
        }
        let data: &'l WorldData = self.data;
        let Some(order) = data.orders.iter().find(|o| o.id == order_id) else {
            return fail(&self.failure("validation", "unknown_order", &id())).map(Err);
        };
        if order.customer != self.customer {
            return fail(&self.failure("permission", "not_yours", &id())).map(Err);
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
            return fail(&self.failure("transient", "lookup_timeout", &[("order_id", order.id.clone())]));
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
            return fail(&self.failure("empty", "no_orders", &[]));
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
                    "refunded": self.confirmed.contains(&o.id),
                })
            })
            .collect();
        Ok(json!({ "orders": listed }))
    }

    /// A subagent whose task failed passes up a report in four labelled parts, built from the
    /// structured error it got. An error with no category gives it nothing to report, so the bare
    /// result goes up as it came.
    pub fn subagent_report(&self, result: &Value, attempts: usize, input: &Value) -> Option<Value> {
        let error = result.get("error")?;
        let category = error.get("errorCategory")?.as_str()?;
        let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
        let order_id = input.get("order_id").and_then(Value::as_str).unwrap_or("?").to_string();
        let fields = [
            ("order_id", order_id),
            ("category", category.to_string()),
            ("message", message.to_string()),
            ("attempts", attempts.to_string()),
        ];
        let tried = if attempts > 1 { "subagent_tried_retry" } else { "subagent_tried_once" };
        let next = if error.get("isRetryable") == Some(&Value::Bool(true)) {
            "subagent_next_later"
        } else {
            "subagent_next_final"
        };
        Some(json!({
            "isError": true,
            "report": {
                "failed": self.message("subagent_failed", &fields),
                "tried": self.message(tried, &fields),
                "partial": self.message("subagent_partial", &fields),
                "next": self.message(next, &fields),
            }
        }))
    }
}

/// A template with `{name}` fields filled in.
pub fn fill(template: &str, fields: &[(&str, String)]) -> String {
    let mut text = template.to_string();
    for (name, value) in fields {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

/// A tool call in words, for its card: the tool's `says`, filled from its input.
pub fn words(lesson: &Lesson, tool: &str, input: &Value) -> String {
    let Some(found) = lesson.tool(tool) else {
        return format!("calls {tool}");
    };
    let mut fields: Vec<(&str, String)> = Vec::new();
    if let Some(object) = input.as_object() {
        for (key, value) in object {
            let shown = value.as_str().map(String::from).unwrap_or_else(|| value.to_string());
            fields.push((key.as_str(), shown));
        }
    }
    let text = fill(&found.says, &fields);
    if text.contains('{') {
        // A field the call left out: say so rather than show the template.
        return found.says_bare.clone().unwrap_or_else(|| format!("calls {tool} without all of its input"));
    }
    text
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

    #[test]
    fn templates_fill_their_fields() {
        assert_eq!(
            fill("order {order_id}, {age} days", &[("order_id", "0871".into()), ("age", "239".into())]),
            "order 0871, 239 days"
        );
    }
}
