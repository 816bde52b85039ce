//! The Lumen Supply world: customers, orders, a frozen calendar, an order service and a payment
//! service with fault schedules, and a refund ledger. The tools answer any input truthfully and
//! hand every failure to the callback they are given, so the world knows nothing of Python or
//! of the shape a lesson gives its failures.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{Effects, Fail, Failure, Halt, Place, Problem, Seen, Setting, TicketKeys, Tool, World};

/// The Lumen Supply world, as the registry holds it.
pub(crate) struct Lumen;

const BEHAVIOURS: [&str; 5] = ["refund", "list_orders", "show_order", "find_refund", "delegate"];

/// A lesson's `[world]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    today: String,
    refund_window_days: i64,
    /// The categories a retry can fix: the truth a replay's cards are coloured by.
    retry_helps: Vec<String>,
    messages: BTreeMap<String, String>,
    /// How the payment service can fail, by name; tickets schedule them.
    #[serde(default)]
    faults: BTreeMap<String, Fault>,
    customers: Vec<Customer>,
    orders: Vec<Order>,
}

/// One way the payment service fails a refund.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fault {
    category: String,
    /// The message key the tool reports with.
    message: String,
    /// Whether the money moved although the tool could not confirm it.
    #[serde(default)]
    paid: bool,
    /// The read that settles what happened, named in the failure.
    #[serde(default)]
    verify: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Customer {
    id: String,
    #[allow(dead_code)]
    name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Order {
    id: String,
    customer: String,
    item: String,
    purchased: String,
    total: String,
    /// Where the parcel is, for order lookups.
    #[serde(default = "default_status")]
    status: String,
    /// Refunded before the ticket began.
    #[serde(default)]
    refunded: bool,
}

fn default_status() -> String {
    "delivered".into()
}

/// A ticket's keys for this world.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TicketData {
    /// Whose conversation it is.
    customer: String,
    /// The payment service's faults on successive refund attempts (names from `world.faults`).
    #[serde(default)]
    payment_faults: Vec<String>,
    /// Order lookups that time out this many times before they answer, by order id.
    #[serde(default)]
    lookup_timeouts: BTreeMap<String, u32>,
    /// Reads of the refund ledger that time out before it answers.
    #[serde(default)]
    read_timeouts: u32,
    /// Orders whose lookup raises inside the order service (message `crash_trace`).
    #[serde(default)]
    lookup_crashes: Vec<String>,
}

/// A lesson's Lumen Supply, loaded.
#[derive(Debug)]
struct Shop {
    data: Data,
    today: i64,
    tools: Vec<Tool>,
    tickets: BTreeMap<String, TicketData>,
}

impl Setting for Lumen {
    fn name(&self) -> &'static str {
        "lumen"
    }

    fn behaviours(&self) -> &'static [&'static str] {
        &BEHAVIOURS
    }

    fn load(
        &self,
        data: &toml::Value,
        tools: &[Tool],
        tickets: &[TicketKeys<'_>],
    ) -> Result<Arc<dyn Place>, Vec<Problem>> {
        let data: Data = data.clone().try_into().map_err(|e: toml::de::Error| {
            vec![Problem::new("[world]", format!("[world] is not Lumen Supply's: {}", e.message().trim()))]
        })?;
        let mut problems = Vec::new();
        let mut loaded = BTreeMap::new();
        for ticket in tickets {
            let at = format!("id = \"{}\"", ticket.id);
            match toml::Value::Table(ticket.keys.clone()).try_into::<TicketData>() {
                Ok(keys) => {
                    loaded.insert(ticket.id.to_string(), keys);
                }
                Err(e) => problems.push(Problem::new(at, format!("ticket {}: {}", ticket.id, e.message().trim()))),
            }
        }
        problems.extend(check(&data, tools, &loaded));
        if !problems.is_empty() {
            return Err(problems);
        }
        let today = parse_date(&data.today).unwrap_or(0);
        Ok(Arc::new(Shop { data, today, tools: tools.to_vec(), tickets: loaded }))
    }
}

/// Everything in the world's data that disagrees with itself or with the lesson's tools.
fn check(data: &Data, tools: &[Tool], tickets: &BTreeMap<String, TicketData>) -> Vec<Problem> {
    let mut out = Vec::new();
    if parse_date(&data.today).is_none() {
        out.push(Problem::new("today", format!("world.today '{}' is not a YYYY-MM-DD date", data.today)));
    }
    let tool_names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for (name, fault) in &data.faults {
        if let Some(read) = &fault.verify {
            if !tool_names.contains(&read.as_str()) {
                out.push(Problem::new(
                    format!("verify = \"{read}\""),
                    format!("fault {name} names an unknown read tool '{read}'"),
                ));
            }
        }
        if !data.messages.contains_key(&fault.message) {
            out.push(Problem::new(
                format!("[world.faults.{name}]"),
                format!("fault {name} uses an unknown message '{}'", fault.message),
            ));
        }
    }
    for order in &data.orders {
        let at = format!("id = \"{}\"", order.id);
        if parse_date(&order.purchased).is_none() {
            out.push(Problem::new(
                &at,
                format!("order {} has a purchase date '{}' that is not YYYY-MM-DD", order.id, order.purchased),
            ));
        }
        if !data.customers.iter().any(|c| c.id == order.customer) {
            out.push(Problem::new(
                &at,
                format!("order {} belongs to an unknown customer '{}'", order.id, order.customer),
            ));
        }
    }
    for (id, ticket) in tickets {
        let at = format!("id = \"{id}\"");
        if !data.customers.iter().any(|c| c.id == ticket.customer) {
            out.push(Problem::new(&at, format!("ticket {id} names an unknown customer '{}'", ticket.customer)));
        }
        for fault in &ticket.payment_faults {
            if !data.faults.contains_key(fault) {
                out.push(Problem::new(&at, format!("ticket {id} schedules an unknown fault '{fault}'")));
            }
        }
        if !ticket.lookup_crashes.is_empty() && !data.messages.contains_key("crash_trace") {
            out.push(Problem::new(
                &at,
                format!("ticket {id} crashes a lookup, but [world.messages] has no crash_trace"),
            ));
        }
    }
    out
}

impl Place for Shop {
    fn start(&self, ticket: &str) -> Box<dyn World + '_> {
        let keys = self.tickets.get(ticket).cloned().unwrap_or_default();
        Box::new(Run {
            shop: self,
            customer: keys.customer,
            payment_faults: keys.payment_faults.into_iter().collect(),
            lookup_timeouts_left: keys.lookup_timeouts,
            read_timeouts_left: keys.read_timeouts,
            crashes: keys.lookup_crashes.into_iter().collect(),
            confirmed: self.data.orders.iter().filter(|o| o.refunded).map(|o| o.id.clone()).collect(),
            paid: BTreeMap::new(),
        })
    }

    fn message(&self, key: &str) -> Option<&str> {
        self.data.messages.get(key).map(String::as_str)
    }

    fn retry_helps(&self, category: &str) -> bool {
        self.data.retry_helps.iter().any(|c| c == category)
    }

    fn internal(&self, category: &str) -> bool {
        // A crash's message is the order service's traceback (`crash_trace`), secrets and all.
        category == "crash"
    }

    fn draw_fields(&self, draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
        // Order ids are four digits.
        vec![("order_id".into(), format!("{:04}", draw(10_000)))]
    }

    fn summary(&self, output: &Value) -> Option<String> {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
        if let Some(order) = output.get("order") {
            return Some(format!(
                "order {}: {}, {}",
                text(order, "order_id"),
                text(order, "item"),
                text(order, "status")
            ));
        }
        if let Some(Value::Array(orders)) = output.get("orders") {
            let ids: Vec<String> = orders.iter().map(|o| text(o, "order_id")).collect();
            return Some(match ids.len() {
                0 => "no orders".into(),
                n => format!("{n} orders: {}", ids.join(", ")),
            });
        }
        None
    }
}

/// One run of one ticket: the shop as that customer sees it, with its own fault schedule.
#[derive(Debug, Clone)]
struct Run<'s> {
    shop: &'s Shop,
    customer: String,
    /// The payment service's faults still to come, one per refund that reaches it.
    payment_faults: VecDeque<String>,
    /// Lookups of an order that time out before the order service answers.
    lookup_timeouts_left: BTreeMap<String, u32>,
    read_timeouts_left: u32,
    /// Orders whose lookup raises.
    crashes: BTreeSet<String>,
    /// Refunds the shop knows it made (its ledger).
    confirmed: BTreeSet<String>,
    /// Money that actually moved, per order: the payment service's truth.
    paid: BTreeMap<String, u32>,
}

type Fields = Vec<(&'static str, String)>;

impl World for Run<'_> {
    fn call(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let shop = self.shop;
        let Some(found) = shop.tools.iter().find(|t| t.name == tool) else {
            let names: Vec<&str> = shop.tools.iter().map(|t| t.name.as_str()).collect();
            // An unknown tool is a validation failure, as a real server would say.
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

    fn found(&self, read: &Value) -> bool {
        // The ledger answers `found: true` when money moved; anything else found nothing.
        read.get("found").is_some_and(crate::pyrepr::truthy)
    }

    fn effects(&self) -> Effects {
        let mut counts = Map::new();
        counts.insert("refunds_paid".into(), Value::from(self.paid.values().sum::<u32>()));
        let mut detail = Map::new();
        if !self.paid.is_empty() {
            detail.insert("refunds_paid".into(), json!(self.paid));
        }
        let harms = self
            .paid
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(order, times)| {
                format!("Order {order} was refunded {times} times: the customer was paid more than once.")
            })
            .collect();
        Effects { counts, detail, harms }
    }

    /// A subagent whose lookup failed passes up a report in four labelled parts, built from the
    /// failure it got. A failure with no category gives it nothing to report.
    fn report(&self, seen: &Seen, attempts: usize, input: &Value) -> Option<Value> {
        let category = seen.category.as_deref()?;
        let message = seen.message.as_deref().unwrap_or("no message");
        let order_id = input.get("order_id").and_then(Value::as_str).unwrap_or("?").to_string();
        let fields: Fields = vec![
            ("order_id", order_id),
            ("category", category.to_string()),
            ("message", message.to_string()),
            ("attempts", attempts.to_string()),
        ];
        let tried = if attempts > 1 { "subagent_tried_retry" } else { "subagent_tried_once" };
        let next = if seen.retryable == Some(true) { "subagent_next_later" } else { "subagent_next_final" };
        Some(json!({
            "failed": self.message("subagent_failed", &fields),
            "tried": self.message(tried, &fields),
            "partial": self.message("subagent_partial", &fields),
            "next": self.message(next, &fields),
        }))
    }
}

impl<'s> Run<'s> {
    /// A message of the lesson's, with `{name}` fields filled in.
    fn message(&self, key: &str, fields: &Fields) -> String {
        super::fill(self.shop.data.messages.get(key).map(String::as_str).unwrap_or(key), fields)
    }

    fn failure(&self, category: &str, key: &str, fields: &Fields) -> Failure {
        Failure { category: category.into(), message: self.message(key, fields), verify: None }
    }

    fn process_refund(&mut self, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        let order_id = order.id.as_str();
        // Every refund message may name the order, its item and its total.
        let id = || -> Fields {
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
        let age = self.shop.today - parse_date(&order.purchased).unwrap_or(self.shop.today);
        let window = self.shop.data.refund_window_days;
        if age > window {
            let mut fields = id();
            fields.push(("age", age.to_string()));
            fields.push(("window", window.to_string()));
            return fail(&self.failure("business", "window_closed", &fields));
        }
        if let Some(name) = self.payment_faults.pop_front() {
            if let Some(fault) = self.shop.data.faults.get(&name) {
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
        Ok(json!({
            "refunded": true,
            "order_id": order.id,
            "amount": order.total,
            "message": self.message("refunded", &id()),
        }))
    }

    /// The payment service's own record: has money moved for this order? Safe to ask again.
    fn find_refund(&mut self, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        if self.read_timeouts_left > 0 {
            self.read_timeouts_left -= 1;
            return fail(&self.failure("transient", "read_timeout", &vec![("order_id", order.id.clone())]));
        }
        let times = self.paid.get(&order.id).copied().unwrap_or(0) + u32::from(order.refunded);
        if times > 0 {
            // The read settles it: the shop's ledger now knows.
            self.confirmed.insert(order.id.clone());
        }
        let fields: Fields = vec![
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
    fn own_order(&self, input: &Value, fail: &mut Fail<'_>) -> Result<Result<&'s Order, Value>, Halt> {
        let Some(order_id) = input.get("order_id").and_then(Value::as_str) else {
            return fail(&self.failure("validation", "missing_id", &Vec::new())).map(Err);
        };
        let id = || -> Fields { vec![("order_id", order_id.to_string())] };
        if order_id.len() != 4 || !order_id.bytes().all(|b| b.is_ascii_digit()) {
            return fail(&self.failure("validation", "bad_id", &id())).map(Err);
        }
        let shop: &'s Shop = self.shop;
        let Some(order) = shop.data.orders.iter().find(|o| o.id == order_id) else {
            return fail(&self.failure("validation", "unknown_order", &id())).map(Err);
        };
        if order.customer != self.customer {
            return fail(&self.failure("permission", "not_yours", &id())).map(Err);
        }
        Ok(Ok(order))
    }

    fn lookup_order(&mut self, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let order = match self.own_order(input, fail)? {
            Ok(order) => order,
            Err(failure) => return Ok(failure),
        };
        let id: Fields = vec![("order_id", order.id.clone())];
        if self.crashes.contains(&order.id) {
            return fail(&self.failure("crash", "crash_trace", &id));
        }
        if let Some(left) = self.lookup_timeouts_left.get_mut(&order.id).filter(|left| **left > 0) {
            *left -= 1;
            return fail(&self.failure("transient", "lookup_timeout", &id));
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

    fn lookup_orders(&mut self, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let shop = self.shop;
        let mut orders: Vec<&Order> = shop.data.orders.iter().filter(|o| o.customer == self.customer).collect();
        if orders.is_empty() {
            return fail(&self.failure("empty", "no_orders", &Vec::new()));
        }
        orders.sort_by(|a, b| b.purchased.cmp(&a.purchased));
        let listed: Vec<Value> = orders
            .iter()
            .map(|o| {
                json!({
                    "order_id": o.id,
                    "item": o.item,
                    "purchased": o.purchased,
                    "days_ago": shop.today - parse_date(&o.purchased).unwrap_or(shop.today),
                    "total": o.total,
                    "refunded": self.confirmed.contains(&o.id),
                })
            })
            .collect();
        Ok(json!({ "orders": listed }))
    }
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian).
fn parse_date(text: &str) -> Option<i64> {
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
