//! Drawing the player: a pure function of its state and the frame's size.
//!
//! ```text
//! lesson · ticket its-id (1/5)                        wide: a ticket list on the left
//! code [starter] <the fix's label> yours   runtime [harness] sdk   compare [off] on
//! Replies: ... (where the replies come from, always)
//! ─────────────────────────────────────
//! cards, revealed in time; › marks the card `e` expands
//! ▶ playing 1× · card 3/8                                  keys
//! ```

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use crate::lesson::Runtime;
use crate::render::cards::{self, Look};
use crate::render::styles::{Glyphs, Styles};
use crate::terminal::player::app::{App, CardItem, Show};
use crate::terminal::player::keys;
use crate::terminal::player::predict::Guess;
use crate::terminal::player::predict::Question;
use crate::terminal::player::source::Source;
use crate::terminal::player::spans;

/// Below this the player says how big it needs to be instead of drawing.
pub(crate) const MIN_WIDTH: u16 = 50;
pub(crate) const MIN_HEIGHT: u16 = 14;
/// From this width on, the tickets get a list of their own on the left.
pub(crate) const WIDE: u16 = 110;
const SIDEBAR: u16 = 26;

/// How to paint: the cards' styles and glyphs, and whether the player's own frame uses colour.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub styles: Styles,
    pub glyphs: Glyphs,
    pub color: bool,
}

impl Theme {
    /// Colour in the frame exactly when the cards have it (so `--color` and NO_COLOR decide both).
    pub fn new(styles: Styles, glyphs: Glyphs) -> Theme {
        Theme { styles, glyphs, color: !styles.good.is_plain() }
    }

    pub fn plain() -> Theme {
        Theme::new(Styles::plain(), Glyphs::UNICODE)
    }

    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    fn strong(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    fn good(&self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    fn bad(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    fn warn(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }
}

pub fn draw<S: Source>(frame: &mut Frame, app: &App<S>, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, theme);
        return;
    }
    // A note (why a code was skipped, what to press) gets lines of its own above the status.
    let note: Vec<Line> = app
        .note
        .as_deref()
        .map(|n| {
            wrap(n, usize::from(area.width))
                .into_iter()
                .map(|l| Line::styled(l, theme.warn()))
                .collect()
        })
        .unwrap_or_default();
    let [main, note_area, status] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(note.len() as u16),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(note), note_area);
    let right = if area.width >= WIDE {
        let [side, right] =
            Layout::horizontal([Constraint::Length(SIDEBAR), Constraint::Min(0)]).areas(main);
        ticket_list(frame, side, app, theme);
        right
    } else {
        main
    };
    let head = header(app, theme, right.width, area.width < WIDE);
    let [head_area, rule_area, cards_area] = Layout::vertical([
        Constraint::Length(head.len() as u16),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(right);
    frame.render_widget(Paragraph::new(head), head_area);
    frame.render_widget(
        Paragraph::new(Line::styled("─".repeat(usize::from(rule_area.width)), theme.dim())),
        rule_area,
    );
    let used = cards_view(frame, cards_area, app, theme);
    status_line(frame, status, app, theme);
    if let Some(question) = &app.question {
        question_box(frame, cards_area, used, question, theme);
    }
    if app.help {
        help_box(frame, area, theme);
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    textwrap::wrap(text, textwrap::Options::new(width.max(10)).break_words(true))
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

fn too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let text = format!(
        "This terminal is {}×{}; the player needs at least {MIN_WIDTH}×{MIN_HEIGHT}. Make the window larger, or press q and run ./workshop watch --no-anim for plain output.",
        area.width, area.height
    );
    let lines: Vec<Line> = wrap(&text, usize::from(area.width.saturating_sub(2)))
        .into_iter()
        .map(|l| Line::styled(l, theme.warn()))
        .collect();
    let height = (lines.len() as u16).min(area.height);
    let top = area.height.saturating_sub(height) / 2;
    let spot = Rect { x: area.x + 1, y: area.y + top, width: area.width.saturating_sub(2), height };
    frame.render_widget(Paragraph::new(lines), spot);
}

fn ticket_list<S: Source>(frame: &mut Frame, area: Rect, app: &App<S>, theme: &Theme) {
    let block = Block::bordered().title(" Tickets ").border_style(theme.dim());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = Vec::new();
    for (i, t) in app.source.tickets().iter().enumerate() {
        let current = i == app.ticket;
        let mark = if current { "› " } else { "  " };
        let style = if current { theme.strong().patch(theme.accent()) } else { Style::new() };
        lines.push(Line::from(vec![
            Span::styled(mark, theme.accent()),
            Span::styled(t.id.clone(), style),
        ]));
        lines.push(Line::styled(format!("    {}", t.category), theme.dim()));
    }
    lines.push(Line::default());
    lines.push(Line::styled("←/→ or j/k", theme.dim()));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `[chosen] other other`, or just the chosen one when space is short.
fn switch<'a>(
    name: &str,
    values: &[(String, bool)],
    chosen: usize,
    full: bool,
    theme: &Theme,
) -> Vec<Span<'a>> {
    let mut spans = vec![Span::styled(format!("{name} "), theme.dim())];
    if !full {
        spans.push(Span::styled(values[chosen].0.clone(), theme.strong()));
        return spans;
    }
    for (i, (value, available)) in values.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        if i == chosen {
            spans.push(Span::styled(format!("[{value}]"), theme.strong().patch(theme.accent())));
        } else if *available {
            spans.push(Span::raw(value.clone()));
        } else {
            spans.push(Span::styled(format!("({value}: none yet)"), theme.dim()));
        }
    }
    spans
}

fn header<S: Source>(app: &App<S>, theme: &Theme, width: u16, narrow: bool) -> Vec<Line<'static>> {
    let w = usize::from(width);
    let tickets = app.source.tickets();
    let mut lines = Vec::new();
    let ticket = format!("ticket {} ({}/{})", app.ticket_id(), app.ticket + 1, tickets.len());
    let mut title = vec![
        Span::styled(app.source.lesson().to_string(), theme.strong()),
        Span::styled(" · ", theme.dim()),
        Span::styled(ticket, theme.strong().patch(theme.accent())),
    ];
    if narrow {
        title.push(Span::styled("  ←/→", theme.dim()));
    }
    lines.push(Line::from(title));

    let codes: Vec<(String, bool)> = app
        .source
        .codes()
        .iter()
        .enumerate()
        .map(|(i, label)| (label.clone(), i == app.code || app.source.available(i).is_ok()))
        .collect();
    let runtimes: Vec<(String, bool)> =
        Runtime::ALL.iter().map(|r| (r.name().to_string(), true)).collect();
    let runtime = Runtime::ALL.iter().position(|r| *r == app.runtime).unwrap_or(0);
    let compare = [("off".to_string(), true), ("on".to_string(), true)];
    let full = w >= 84;
    let gap = || Span::styled(if full { "   " } else { " · " }, theme.dim());
    let mut switches = switch("code", &codes, app.code, full, theme);
    switches.push(gap());
    switches.extend(switch("runtime", &runtimes, runtime, full, theme));
    switches.push(gap());
    switches.extend(switch("compare", &compare, usize::from(app.compare), full, theme));
    lines.push(Line::from(switches));
    if app.compare {
        let other = if app.code == 0 { 1 } else { app.code };
        let codes = app.source.codes();
        let text =
            format!("comparing {} against {}, marked where the runs split", codes[0], codes[other]);
        lines.extend(wrap(&text, w).into_iter().map(|l| Line::styled(l, theme.dim())));
    }

    let provenance = match &app.show {
        _ if app.replaying() => "Replies: known when the replay is ready.".to_string(),
        Ok(show) => cards::provenance_line(&show.all_events()),
        Err(_) => "Replies: none; this ticket could not be replayed (see below).".to_string(),
    };
    lines.extend(
        wrap(&provenance, w)
            .into_iter()
            .map(|l| Line::styled(l, theme.warn().remove_modifier(Modifier::BOLD))),
    );
    lines
}

/// The learner's guess under the verdict it was about: right or wrong, and why.
fn guess_lines(v: &mut Vec<Line<'static>>, guess: &Guess, theme: &Theme, width: u16) {
    let (mark, style) = if guess.right() {
        (theme.glyphs.pass, theme.good())
    } else {
        (theme.glyphs.fail, theme.bad())
    };
    let text = format!("{mark} {}", guess.judgement());
    let room = usize::from(width).saturating_sub(2 + 14);
    for (n, piece) in wrap(&text, room).into_iter().enumerate() {
        let label = if n == 0 { "Your guess" } else { "" };
        v.push(Line::from(vec![
            Span::styled(format!("{label:<14}"), style),
            Span::styled(piece, style),
        ]));
    }
}

/// The revealed items as lines, and where each item's lines start and end.
fn card_lines<S: Source>(
    app: &App<S>,
    show: &Show,
    theme: &Theme,
    width: u16,
) -> (Vec<Line<'static>>, Vec<(usize, usize)>) {
    let look = |expand| Look {
        styles: theme.styles,
        glyphs: theme.glyphs,
        width: usize::from(width).saturating_sub(2),
        expand,
    };
    let selected = app.selected();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans = Vec::new();
    for (i, item) in show.items.iter().take(app.shown).enumerate() {
        let start = lines.len();
        let body: Vec<Line<'static>> = match *item {
            CardItem::Event { .. } => {
                let event = show.told(*item);
                event
                    .map(|e| {
                        spans::lines(
                            &cards::event_lines(&e, &look(app.is_expanded(i))),
                            theme.color,
                        )
                    })
                    .unwrap_or_default()
            }
            CardItem::Split => {
                spans::lines(&cards::split_marker_lines(&look(false), show.split), theme.color)
            }
            CardItem::RunHead(run) => {
                vec![Line::styled(format!("── {} ──", show.runs[run].code), theme.strong())]
            }
            CardItem::Verdict(run) => {
                let mut v = spans::lines(
                    &cards::verdict_lines(&show.runs[run].verdict, &look(false)),
                    theme.color,
                );
                if let Some(guess) = app.judged().filter(|g| g.run == run) {
                    guess_lines(&mut v, guess, theme, width);
                }
                if show.runs.len() > 1 {
                    v.push(Line::default());
                }
                v
            }
        };
        let body =
            body.into_iter().flat_map(|line| fit(line, usize::from(width).saturating_sub(2)));
        for (n, line) in body.enumerate() {
            let gutter = if n == 0 && Some(i) == selected { "› " } else { "  " };
            let mut all = vec![Span::styled(gutter, theme.accent().add_modifier(Modifier::BOLD))];
            all.extend(line.spans);
            lines.push(Line::from(all));
        }
        spans.push((start, lines.len()));
    }
    (lines, spans)
}

/// Draw the cards; returns how many lines they take.
/// A line wider than `width` (raw JSON, which the cards never break mid-token) as several,
/// each continuation indented under the line's own indentation.
fn fit(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width || width < 8 {
        return vec![line];
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let indent = (text.len() - text.trim_start().len() + 2).min(width / 2);
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            if used == width {
                if !piece.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                out.push(Line::from(std::mem::take(&mut current)));
                current.push(Span::raw(" ".repeat(indent)));
                used = indent;
            }
            piece.push(c);
            used += 1;
        }
        if !piece.is_empty() {
            current.push(Span::styled(piece, span.style));
        }
    }
    out.push(Line::from(current));
    out
}

/// The codes being replayed, as the status line names them: `yours`, `starter and yours`.
fn replaying_with<S: Source>(app: &App<S>) -> String {
    let codes = app.source.codes();
    let names: Vec<&str> =
        app.codes_to_run().iter().filter_map(|&c| codes.get(c)).map(String::as_str).collect();
    names.join(" and ")
}

fn cards_view<S: Source>(frame: &mut Frame, area: Rect, app: &App<S>, theme: &Theme) -> u16 {
    if app.replaying() {
        let text = format!("Replaying {} with {}…", app.ticket_id(), replaying_with(app));
        let lines: Vec<Line> = wrap(&text, usize::from(area.width))
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        let used = lines.len() as u16;
        frame.render_widget(Paragraph::new(lines), area);
        return used;
    }
    let show = match &app.show {
        Ok(show) => show,
        Err(why) => {
            let mut lines = vec![Line::styled("This ticket could not be replayed:", theme.bad())];
            lines
                .extend(wrap(&why.to_string(), usize::from(area.width)).into_iter().map(Line::raw));
            lines.push(Line::default());
            lines.push(Line::styled(
                "Pick another ticket (←/→), runtime (r) or code (c).",
                theme.dim(),
            ));
            let used = lines.len() as u16;
            frame.render_widget(Paragraph::new(lines), area);
            return used;
        }
    };
    let (lines, spans) = card_lines(app, show, theme, area.width);
    let height = usize::from(area.height);
    // Follow the newest card; but keep the top of the selected card in view when it is taller.
    let mut start = lines.len().saturating_sub(height);
    if let Some((top, _)) = app.selected().and_then(|i| spans.get(i)) {
        if *top < start && app.is_expanded(app.selected().unwrap_or(0)) {
            start = *top;
        }
    }
    let visible: Vec<Line> = lines.into_iter().skip(start).take(height).collect();
    let used = visible.len() as u16;
    frame.render_widget(Paragraph::new(visible), area);
    used
}

fn speed(speed: f64) -> String {
    if speed.fract() == 0.0 {
        format!("{speed:.0}×")
    } else {
        format!("{speed}×")
    }
}

fn status_line<S: Source>(frame: &mut Frame, area: Rect, app: &App<S>, theme: &Theme) {
    if app.replaying() {
        return replaying_status(frame, area, app, theme);
    }
    let total = app.items().len();
    let (state, style) = if app.question.is_some() {
        ("? predict".to_string(), theme.warn())
    } else if app.show.is_err() {
        ("✗ no replay".to_string(), theme.bad())
    } else if app.finished() {
        ("■ end".to_string(), theme.strong())
    } else if app.paused {
        ("❚❚ paused".to_string(), theme.warn())
    } else {
        ("▶ playing".to_string(), theme.good())
    };
    // While a question is open, the number of cards would give the answer away.
    let left = if app.question.is_some() {
        format!("{state} ")
    } else {
        format!("{state} {} · {}/{total} ", speed(app.speed), app.shown)
    };
    let room = usize::from(area.width).saturating_sub(left.chars().count() + 1);
    let (right, right_style) = match &app.question {
        Some(q) => (format!("answer {} · space skip · q quit", q.keys()), theme.dim()),
        None => {
            let options: &[&str] = if app.finished() {
                &[
                    "space play again · , step back · ←/→ next ticket · c code · r runtime · s compare · ? help · q quit",
                    "space play again · ←/→ next ticket · ? help · q quit",
                    "space again · ? help · q quit",
                    "? help · q quit",
                ]
            } else if app.paused {
                &[
                    "space resume · . , step · e JSON · +/- speed · ←/→ ticket · c code · r runtime · s compare · ? help · q quit",
                    "space resume · . , step · e JSON · ? help · q quit",
                    "space resume · ? help · q quit",
                    "? help · q quit",
                ]
            } else {
                &[
                    "←/→ ticket · c code · r runtime · s compare · space pause · . , step · +/- speed · e JSON · ? help · q quit",
                    "space pause · . , step · e JSON · ? help · q quit",
                    "space pause · ? help · q quit",
                    "? help · q quit",
                ]
            };
            let keys = options.iter().find(|k| k.chars().count() <= room).copied().unwrap_or("");
            (keys.to_string(), theme.dim())
        }
    };
    let right: String = right.chars().take(room).collect();
    let pad = room.saturating_sub(right.chars().count());
    let line = Line::from(vec![
        Span::styled(left, style),
        Span::raw(" ".repeat(pad + 1)),
        Span::styled(right, right_style),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// The status while the worker computes: what it replays, and the keys that work meanwhile.
fn replaying_status<S: Source>(frame: &mut Frame, area: Rect, app: &App<S>, theme: &Theme) {
    let left = format!("⋯ replaying with {}… ", replaying_with(app));
    let room = usize::from(area.width).saturating_sub(left.chars().count() + 1);
    let options = [
        "←/→ ticket · c code · r runtime · s compare · ? help · q quit",
        "←/→ ticket · c code · q quit",
        "q quit",
    ];
    let right = options.iter().find(|k| k.chars().count() <= room).copied().unwrap_or("");
    let pad = room.saturating_sub(right.chars().count());
    let line = Line::from(vec![
        Span::styled(left, theme.warn()),
        Span::raw(" ".repeat(pad + 1)),
        Span::styled(right, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// A bordered box in `area` with `lines` inside, cleared first: from line `top` of the area
/// (as far down as it fits), or centred.
fn boxed(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    theme: &Theme,
    top: Option<u16>,
) {
    let height = (lines.len() as u16 + 2).min(area.height);
    let width = area.width;
    let room = area.height - height;
    let y = area.y + top.map_or(room / 2, |t| t.min(room));
    let spot = Rect { x: area.x, y, width, height };
    let block = Block::bordered()
        .title(format!(" {title} "))
        .border_style(theme.accent())
        .title_style(theme.strong());
    frame.render_widget(Clear, spot);
    frame.render_widget(Paragraph::new(lines).block(block), spot);
}

/// The question, just under the cards shown so far (the customer's message).
fn question_box(frame: &mut Frame, area: Rect, below: u16, question: &Question, theme: &Theme) {
    let w = usize::from(area.width.saturating_sub(4));
    let mut lines: Vec<Line> = Vec::new();
    lines.extend(wrap(&question.ask, w).into_iter().map(|l| Line::styled(l, theme.strong())));
    lines.extend(wrap(&question.context, w).into_iter().map(|l| Line::styled(l, theme.dim())));
    lines.push(Line::default());
    for choice in &question.choices {
        lines.push(Line::from(vec![
            Span::styled(format!("  {}  ", choice.key), theme.strong().patch(theme.accent())),
            Span::raw(choice.words.clone()),
        ]));
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        format!("Press {} · space skips the question", question.keys()),
        theme.dim(),
    ));
    let [_, inner] = Layout::horizontal([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    boxed(frame, inner, "Predict, then watch", lines, theme, Some(below + 1));
}

fn help_box(frame: &mut Frame, area: Rect, theme: &Theme) {
    let width = area.width.min(72);
    let spot = Rect { x: area.x + (area.width - width) / 2, y: area.y, width, height: area.height };
    let mut lines: Vec<Line> = keys::HELP
        .iter()
        .map(|(key, what)| {
            Line::from(vec![
                Span::styled(format!(" {key:<16}"), theme.strong().patch(theme.accent())),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::default());
    let note =
        "Changing ticket, code, runtime or compare replays from the start. The header says who wrote the replies.";
    lines.extend(
        wrap(note, usize::from(width.saturating_sub(4)))
            .into_iter()
            .map(|l| Line::styled(format!(" {l}"), theme.dim())),
    );
    lines.push(Line::styled(" Any key closes this help.", theme.dim()));
    boxed(frame, spot, "Keys", lines, theme, None);
}
