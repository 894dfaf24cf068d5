//! The package as a picture: which files and relations are drawn ([`Drawing`]), and the
//! SVG renderer ([`svg`]). The Mermaid diagram of the package's Markdown
//! ([`ContextPackage::to_mermaid`](super::ContextPackage::to_mermaid)) draws the same
//! [`Drawing`], so the two pictures cannot drift apart. Every binding gets the SVG
//! from here: Rust (`ContextPackage::to_svg`), Python (the notebook view) and C
//! (`dd_package_svg`).
//!
//! The renderer reads the package's JSON (the schema every binding shares), so a
//! binding that holds only the JSON draws it without a package object. It is
//! tolerant: a missing or ill-typed field reads as empty.
//!
//! The layout is layered and deterministic: the anchors form the first layer, every
//! other file sits in the layer of its distance (in relations) from the nearest anchor,
//! files no relation reaches come last; within a layer files keep their rank. Paths are
//! untrusted input: every text is escaped, characters XML cannot hold are replaced, long
//! paths are shortened (the full path is in the box's tooltip), and at most
//! [`MAX_FILES`] files and [`MAX_RELATIONS`] relations are drawn, with a note saying how
//! many were left out. The same package always gives the same bytes.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

/// The most files drawn: the first ones by rank.
pub const MAX_FILES: usize = 40;
/// The most relations drawn, each (from, to, kind) once.
pub const MAX_RELATIONS: usize = 40;
/// The fill of an anchor's box.
pub const ANCHOR_FILL: &str = "#ffd166";
/// The fill of every other file's box.
pub const FILE_FILL: &str = "#bfdbf7";

const ANCHOR_STROKE: &str = "#b7791f";
const FILE_STROKE: &str = "#3d6e9e";
const EDGE: &str = "#5f6b7a";
const PER_ROW: usize = 4;
const BOX_W: f64 = 264.0;
const BOX_H: f64 = 44.0;
const GAP_X: f64 = 36.0;
const GAP_Y: f64 = 64.0;
const MARGIN: f64 = 20.0;
const HEADING: f64 = 22.0;
/// What fits in a box at 12px monospace (about 7.2px a character).
const LABEL_CHARS: usize = 34;
const TITLE_CHARS: usize = 1000;
const FONT: &str = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace";

/// A file as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnFile {
    /// Its path.
    pub path: String,
    /// Its role's name.
    pub role: String,
    /// Whether it is an anchor.
    pub anchor: bool,
}

/// A relation as drawn, between two drawn files (indexes into [`Drawing::files`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnRelation {
    /// The file it leaves.
    pub from: usize,
    /// The file it reaches.
    pub to: usize,
    /// The relation kind's name.
    pub kind: String,
    /// Its confidence, when the package gives one.
    pub confidence: Option<f64>,
    /// Why it exists.
    pub rationale: String,
}

/// What a picture of the package draws: the first [`MAX_FILES`] files by rank and the
/// relations between two of them, each (from, to, kind) once and never from a file to
/// itself, at most [`MAX_RELATIONS`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drawing {
    /// The files drawn, best first.
    pub files: Vec<DrawnFile>,
    /// The relations drawn, in the package's order.
    pub relations: Vec<DrawnRelation>,
    /// The package's files beyond [`MAX_FILES`].
    pub files_left_out: usize,
    /// The relations between drawn files beyond [`MAX_RELATIONS`].
    pub relations_left_out: usize,
}

/// A JSON value as text: a string as it is, nothing as empty, anything else as JSON.
fn text_of(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A relation of the package before the choice: paths, kind, confidence, rationale.
struct Listed {
    from: String,
    to: String,
    kind: String,
    confidence: Option<f64>,
    rationale: String,
}

impl Drawing {
    /// The drawing of a package's JSON (`files` with `path`, `role`, `anchor`;
    /// `relations` with `from`, `to`, `relation`, `confidence`, `rationale`).
    pub fn of_json(package: &Value) -> Drawing {
        let objects = |key: &str| -> Vec<&serde_json::Map<String, Value>> {
            package
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object)
                .collect()
        };
        let files = objects("files")
            .into_iter()
            .map(|f| DrawnFile {
                path: text_of(f.get("path")),
                role: text_of(f.get("role")),
                anchor: f.get("anchor") == Some(&Value::Bool(true)),
            })
            .collect();
        let relations = objects("relations")
            .into_iter()
            .map(|r| Listed {
                from: text_of(r.get("from")),
                to: text_of(r.get("to")),
                kind: text_of(r.get("relation")),
                confidence: r.get("confidence").and_then(Value::as_f64),
                rationale: text_of(r.get("rationale")),
            })
            .collect();
        Drawing::choose(files, relations)
    }

    /// The drawing of a package.
    pub fn of(package: &super::ContextPackage) -> Drawing {
        let files = package
            .files
            .iter()
            .map(|f| DrawnFile {
                path: f.path.clone(),
                role: f.role.name().to_string(),
                anchor: f.anchor,
            })
            .collect();
        let relations = package
            .relations
            .iter()
            .map(|r| Listed {
                from: r.from.clone(),
                to: r.to.clone(),
                kind: r.relation.name().to_string(),
                confidence: Some(f64::from(r.confidence)),
                rationale: r.rationale.clone(),
            })
            .collect();
        Drawing::choose(files, relations)
    }

    /// The choice both pictures draw: the first [`MAX_FILES`] files, the relations
    /// between two of them, each (from, to, kind) once, none from a file to itself,
    /// at most [`MAX_RELATIONS`].
    fn choose(mut files: Vec<DrawnFile>, listed: Vec<Listed>) -> Drawing {
        let files_left_out = files.len().saturating_sub(MAX_FILES);
        files.truncate(MAX_FILES);
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (k, f) in files.iter().enumerate() {
            index.entry(f.path.as_str()).or_insert(k);
        }
        let mut relations = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut relations_left_out = 0;
        for r in listed {
            let (Some(&from), Some(&to)) = (index.get(r.from.as_str()), index.get(r.to.as_str()))
            else {
                continue;
            };
            // A file related to itself says nothing in a picture of how files connect.
            if from == to || !seen.insert((from, to, r.kind.clone())) {
                continue;
            }
            if relations.len() < MAX_RELATIONS {
                relations.push(DrawnRelation {
                    from,
                    to,
                    kind: r.kind,
                    confidence: r.confidence,
                    rationale: r.rationale,
                });
            } else {
                relations_left_out += 1;
            }
        }
        Drawing {
            files,
            relations,
            files_left_out,
            relations_left_out,
        }
    }
}

/// Whether XML 1.0 cannot hold `c` even as a character reference, or it is a bidi
/// control that could make a drawn path read as another one.
fn unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{fffe}' | '\u{ffff}')
}

/// `value` as escaped text for the SVG: unsafe characters replaced, line breaks
/// flattened, at most `limit` characters (the end kept, as it names the file).
fn text(value: &str, limit: usize) -> String {
    let flat: Vec<char> = value
        .chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if unsafe_char(c) => '\u{fffd}',
            c => c,
        })
        .collect();
    let kept: String = if flat.len() > limit {
        std::iter::once('…')
            .chain(flat[flat.len() - limit + 1..].iter().copied())
            .collect()
    } else {
        flat.into_iter().collect()
    };
    let mut out = String::with_capacity(kept.len());
    for c in kept.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate, written the same way every time (one decimal, no trailing zero).
fn num(x: f64) -> String {
    let s = format!("{x:.1}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The files grouped by their distance from the anchors (relations taken either way),
/// each layer with its heading and its files in rank order.
fn layers(drawing: &Drawing) -> Vec<(String, Vec<usize>)> {
    let count = drawing.files.len();
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); count];
    for r in &drawing.relations {
        neighbours[r.from].push(r.to);
        neighbours[r.to].push(r.from);
    }
    let anchors: Vec<usize> = (0..count).filter(|&k| drawing.files[k].anchor).collect();
    let has_anchors = !anchors.is_empty();
    let roots = if has_anchors {
        anchors
    } else {
        (0..count.min(1)).collect()
    };
    let mut distance: Vec<Option<usize>> = vec![None; count];
    for &k in &roots {
        distance[k] = Some(0);
    }
    let mut frontier = roots;
    let mut step = 0;
    // A breadth-first walk over at most MAX_FILES files: no recursion.
    while !frontier.is_empty() {
        step += 1;
        let mut reached = Vec::new();
        for k in frontier {
            for &n in &neighbours[k] {
                if distance[n].is_none() {
                    distance[n] = Some(step);
                    reached.push(n);
                }
            }
        }
        frontier = reached;
    }
    let from = if has_anchors { "anchors" } else { "best file" };
    let mut out = Vec::new();
    for d in 0..step {
        let members: Vec<usize> = (0..count).filter(|&k| distance[k] == Some(d)).collect();
        if members.is_empty() {
            continue;
        }
        let heading = match d {
            0 => from.to_string(),
            1 => format!("1 relation from the {from}"),
            d => format!("{d} relations from the {from}"),
        };
        out.push((heading, members));
    }
    let unreached: Vec<usize> = (0..count).filter(|&k| distance[k].is_none()).collect();
    if !unreached.is_empty() {
        out.push((format!("no relation to the {from}"), unreached));
    }
    out
}

/// Where each drawn file's box sits: rows of at most [`PER_ROW`] boxes, each layer
/// starting a new row under its heading, with gutters between rows and columns that
/// the arrows run in.
struct Grid {
    /// (column, row) of each file.
    cell: Vec<(usize, usize)>,
    row_top: Vec<f64>,
    headings: Vec<(f64, String)>,
    columns: usize,
    width: f64,
    height: f64,
}

impl Grid {
    fn new(layers: &[(String, Vec<usize>)], count: usize, top: f64) -> Grid {
        let mut cell = vec![(0, 0); count];
        let mut row_top = Vec::new();
        let mut headings = Vec::new();
        let mut y = top;
        for (heading, members) in layers {
            headings.push((y + 14.0, heading.clone()));
            y += HEADING;
            for row in members.chunks(PER_ROW) {
                for (col, &k) in row.iter().enumerate() {
                    cell[k] = (col, row_top.len());
                }
                row_top.push(y);
                y += BOX_H + GAP_Y;
            }
        }
        let widest = layers.iter().map(|(_, m)| m.len()).max().unwrap_or(1);
        let columns = PER_ROW.min(widest);
        let width = (2.0 * MARGIN + GAP_X + columns as f64 * (BOX_W + GAP_X)).max(360.0);
        let height = if layers.is_empty() { y } else { y - GAP_Y } + MARGIN;
        Grid {
            cell,
            row_top,
            headings,
            columns,
            width,
            height,
        }
    }

    /// The left side of file `k`'s box; a gutter lies left of the first column.
    fn x(&self, k: usize) -> f64 {
        MARGIN + GAP_X + self.cell[k].0 as f64 * (BOX_W + GAP_X)
    }

    /// The top of file `k`'s box.
    fn y(&self, k: usize) -> f64 {
        self.row_top[self.cell[k].1]
    }

    /// The middle of the free band under `row` (above any heading of the next).
    fn gutter_y(&self, row: usize) -> f64 {
        self.row_top[row] + BOX_H + GAP_Y / 2.0 - 6.0
    }

    /// The middle of the gutter left of `column`.
    fn gutter_x(&self, column: usize) -> f64 {
        MARGIN + GAP_X / 2.0 + column as f64 * (BOX_W + GAP_X)
    }
}

/// The path of an arrow from file `a` to file `b` and where its label goes.
///
/// Arrows only run in gutters, never across a box: within a row they dip into the band
/// below it; between neighbouring rows they cross the band between them; farther they
/// go along a band, down or up a column gutter (in the `lane` of their pair of files)
/// and along the band by the target. Each end sits on the side facing the other file,
/// shifted towards it and by `fan` so that arrows between the same two files stay apart.
fn route(grid: &Grid, a: usize, b: usize, fan: f64, lane: usize) -> (String, f64, f64) {
    let ((ca, ra), (cb, rb)) = (grid.cell[a], grid.cell[b]);
    let (acx, bcx) = (grid.x(a) + BOX_W / 2.0, grid.x(b) + BOX_W / 2.0);
    let reach = BOX_W / 2.0 - 14.0;
    let ax = acx + (0.3 * (bcx - acx) + fan).clamp(-reach, reach);
    let bx = bcx + (0.3 * (acx - bcx) + fan).clamp(-reach, reach);
    if ra == rb {
        let ay = grid.y(a) + BOX_H;
        let apart = ca.abs_diff(cb) as f64;
        let depth = (30.0 + 12.0 * (apart - 1.0) + fan.abs()).min(72.0);
        let low = ay + depth;
        let path = format!(
            "M{} {} C{} {} {} {} {} {}",
            num(ax),
            num(ay),
            num(ax),
            num(low),
            num(bx),
            num(low),
            num(bx),
            num(ay)
        );
        return (path, (ax + bx) / 2.0, ay + 0.75 * depth);
    }
    let down = rb > ra;
    let ay = grid.y(a) + if down { BOX_H } else { 0.0 };
    let by = grid.y(b) + if down { 0.0 } else { BOX_H };
    if ra.abs_diff(rb) == 1 {
        let my = grid.gutter_y(ra.min(rb));
        let path = format!(
            "M{} {} C{} {} {} {} {} {}",
            num(ax),
            num(ay),
            num(ax),
            num(my),
            num(bx),
            num(my),
            num(bx),
            num(by)
        );
        return (path, (ax + bx) / 2.0, my);
    }
    let shift = 6.0 * ((lane % 3) as f64 - 1.0) + fan / 4.0;
    let ya = grid.gutter_y(if down { ra } else { ra - 1 }) + shift;
    let yb = grid.gutter_y(if down { rb - 1 } else { rb }) + shift;
    let cost = |g: usize| (grid.gutter_x(g) - acx).abs() + (grid.gutter_x(g) - bcx).abs();
    let gx = (0..=grid.columns)
        .min_by(|&g, &h| cost(g).total_cmp(&cost(h)).then(g.cmp(&h)))
        .unwrap_or(0);
    let x = grid.gutter_x(gx) + shift;
    let points = [(ax, ay), (ax, ya), (x, ya), (x, yb), (bx, yb), (bx, by)];
    let path = points
        .iter()
        .map(|(px, py)| format!("{} {}", num(*px), num(*py)))
        .collect::<Vec<_>>()
        .join(" L");
    // The label sits above its leg: the lanes run under it.
    (format!("M{path}"), (ax + x) / 2.0, ya - 10.0)
}

/// The arrows between two files: their kinds in order, and where their one label goes
/// (by the first arrow).
#[derive(Default)]
struct Pair {
    kinds: Vec<String>,
    label_at: (f64, f64),
}

/// A relation's confidence as two decimals, or `?` when the package gives none.
fn confidence(value: Option<f64>) -> String {
    value.map_or_else(|| "?".into(), |v| format!("{v:.2}"))
}

/// The package's JSON drawn as a standalone SVG document: a box per file (shortened
/// path, rank, role; anchors in [`ANCHOR_FILL`], other files in [`FILE_FILL`]; the full
/// path as tooltip) and an arrow per relation, labelled with its kind. Deterministic;
/// every text escaped.
pub fn svg(package: &Value) -> String {
    let drawing = Drawing::of_json(package);
    let notes = notes_of(&drawing);
    let top = MARGIN + 24.0 + 18.0 * notes.len() as f64;
    let grid = Grid::new(&layers(&drawing), drawing.files.len(), top);
    let mut out = header(&drawing, &grid);
    legend(&mut out, &notes, &grid);
    // Arrows under the boxes; one label per pair of files, naming every kind between
    // them, over the boxes.
    let pairs = arrows(&mut out, &drawing, &grid);
    boxes(&mut out, &drawing.files, &grid);
    pair_labels(&mut out, &pairs);
    out.push_str("</svg>\n");
    out
}

/// What the picture says it left out (or that it has nothing to draw).
fn notes_of(drawing: &Drawing) -> Vec<String> {
    let mut notes = Vec::new();
    if drawing.files_left_out > 0 {
        notes.push(format!(
            "{} more files not drawn (the first {MAX_FILES} by rank are)",
            drawing.files_left_out
        ));
    }
    if drawing.relations_left_out > 0 {
        notes.push(format!(
            "{} more relations not drawn",
            drawing.relations_left_out
        ));
    }
    if drawing.files.is_empty() {
        notes.push("no files selected".into());
    }
    notes
}

/// The opening of the picture: its size, title, arrow marker and background.
fn header(drawing: &Drawing, grid: &Grid) -> String {
    let files = &drawing.files;
    let (width, height) = (num(grid.width), num(grid.height));
    let title = text(
        &format!(
            "Context package: {} files, {} relations",
            files.len() + drawing.files_left_out,
            drawing.relations.len() + drawing.relations_left_out
        ),
        200,
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"deepdiscovery-picture\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{title}\" \
         font-family=\"{}\" font-size=\"12\" style=\"max-width:100%;height:auto\">",
        text(FONT, 200)
    );
    let _ = writeln!(out, "<title>{title}</title>");
    let _ = writeln!(
        out,
        "<defs><marker id=\"deepdiscovery-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" \
         fill=\"{EDGE}\"/></marker></defs>"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );
    out
}

/// The legend, the notes and the layers' headings.
fn legend(out: &mut String, notes: &[String], grid: &Grid) {
    let m = MARGIN;
    let _ = writeln!(
        out,
        "<g class=\"legend\"><rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{ANCHOR_FILL}\" \
         stroke=\"{ANCHOR_STROKE}\"/><text x=\"{}\" y=\"{}\">anchor</text><rect x=\"{}\" y=\"{}\" \
         width=\"14\" height=\"14\" fill=\"{FILE_FILL}\" stroke=\"{FILE_STROKE}\"/><text x=\"{}\" \
         y=\"{}\">other file</text><text x=\"{}\" y=\"{}\" fill=\"{EDGE}\">arrow: a relation, from → \
         to</text></g>",
        num(m),
        num(m),
        num(m + 20.0),
        num(m + 11.0),
        num(m + 90.0),
        num(m),
        num(m + 110.0),
        num(m + 11.0),
        num(m + 210.0),
        num(m + 11.0)
    );
    for (n, note) in notes.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text class=\"note\" x=\"{}\" y=\"{}\" fill=\"#8a3b12\">{}</text>",
            num(m),
            num(m + 34.0 + 18.0 * n as f64),
            text(note, 200)
        );
    }
    for (y, heading) in &grid.headings {
        let _ = writeln!(
            out,
            "<text class=\"layer\" x=\"{}\" y=\"{}\" fill=\"#555555\" font-style=\"italic\">{}</text>",
            num(m + GAP_X),
            num(*y),
            text(heading, 80)
        );
    }
}

/// The relations' arrows, fanned out between the same two files; returns the pairs
/// of files, in the order of their first arrow, with where their label goes.
fn arrows(out: &mut String, drawing: &Drawing, grid: &Grid) -> Vec<Pair> {
    let files = &drawing.files;
    let mut pairs: Vec<Pair> = Vec::new();
    let mut pair_at: HashMap<(usize, usize), usize> = HashMap::new();
    for r in &drawing.relations {
        let (a, b) = (r.from, r.to);
        let key = (a.min(b), a.max(b));
        let lane = *pair_at.entry(key).or_insert(pairs.len());
        if lane == pairs.len() {
            pairs.push(Pair::default());
        }
        // Arrows already drawn between the two: fan this one out.
        let k = pairs[lane].kinds.len();
        let side = if k % 2 == 1 { 1.0 } else { -1.0 };
        let fan = 12.0 * k.div_ceil(2) as f64 * side;
        let (path, lx, ly) = route(grid, a, b, fan, lane);
        if k == 0 {
            pairs[lane].label_at = (lx, ly);
        }
        pairs[lane].kinds.push(r.kind.clone());
        let tip = format!(
            "{} —{}→ {} ({}): {}",
            files[a].path,
            r.kind,
            files[b].path,
            confidence(r.confidence),
            r.rationale
        );
        let _ = writeln!(
            out,
            "<g class=\"edge\"><title>{}</title><path d=\"{path}\" fill=\"none\" stroke=\"{EDGE}\" \
             stroke-width=\"1.4\" marker-end=\"url(#deepdiscovery-arrow)\"/></g>",
            text(&tip, TITLE_CHARS)
        );
    }
    pairs
}

/// The files' boxes: path, rank and role, anchors marked.
fn boxes(out: &mut String, files: &[DrawnFile], grid: &Grid) {
    for (k, f) in files.iter().enumerate() {
        let (x, y) = (grid.x(k), grid.y(k));
        let (fill, stroke, width) = if f.anchor {
            (ANCHOR_FILL, ANCHOR_STROKE, "2.5")
        } else {
            (FILE_FILL, FILE_STROKE, "1.2")
        };
        let caption = format!(
            "#{} · {}{}",
            k + 1,
            text(&f.role, 20),
            if f.anchor { " · anchor" } else { "" }
        );
        let _ = writeln!(
            out,
            "<g class=\"node{}\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
             rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/><text x=\"{}\" \
             y=\"{}\" fill=\"#111111\">{}</text><text x=\"{}\" y=\"{}\" fill=\"#444444\" \
             font-size=\"10\">{caption}</text></g>",
            if f.anchor { " anchor" } else { "" },
            text(&f.path, TITLE_CHARS),
            num(x),
            num(y),
            num(BOX_W),
            num(BOX_H),
            num(x + 8.0),
            num(y + 18.0),
            text(&f.path, LABEL_CHARS),
            num(x + 8.0),
            num(y + 35.0)
        );
    }
}

/// One label per pair of files, naming every kind of relation between them.
fn pair_labels(out: &mut String, pairs: &[Pair]) {
    for Pair {
        kinds,
        label_at: (lx, ly),
    } in pairs
    {
        let mut distinct: Vec<&str> = Vec::new();
        for kind in kinds {
            if !distinct.contains(&kind.as_str()) {
                distinct.push(kind);
            }
        }
        let _ = writeln!(
            out,
            "<text class=\"edge-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" \
             fill=\"#333333\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
            num(*lx),
            num(ly + 4.0),
            text(&distinct.join(", "), 40)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SVG: &str = "http://www.w3.org/2000/svg";

    /// `files` files `src/m{k}.py`, the `anchors` among them, and the relations.
    fn synthetic(files: usize, relations: &[(usize, usize, &str)], anchors: &[usize]) -> Value {
        let path = |k: usize| format!("src/m{k}.py");
        json!({
            "files": (0..files)
                .map(|k| json!({"path": path(k), "role": "source", "anchor": anchors.contains(&k)}))
                .collect::<Vec<_>>(),
            "relations": relations
                .iter()
                .map(|(a, b, kind)| json!({"from": path(*a), "to": path(*b), "relation": kind,
                    "confidence": 1.0, "rationale": "r"}))
                .collect::<Vec<_>>(),
        })
    }

    /// The titles of the `<g>` groups of a class; panics unless the SVG is well-formed.
    fn titles(svg: &str, class: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().namespace(), Some(SVG));
        doc.descendants()
            .filter(|n| n.has_tag_name("g"))
            .filter(|n| {
                n.attribute("class")
                    .unwrap_or("")
                    .split(' ')
                    .any(|c| c == class)
            })
            .map(|g| {
                g.children()
                    .find(|c| c.has_tag_name("title"))
                    .and_then(|t| t.text())
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    }

    fn texts(svg: &str, class: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).unwrap();
        doc.descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("class") == Some(class))
            .map(|n| n.text().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn edges_join_drawn_files_once_per_kind_and_never_a_file_to_itself() {
        let data = synthetic(
            45,
            &[
                (0, 1, "imports"),
                (0, 1, "imports"),
                (0, 1, "calls"),
                (1, 0, "imports"),
                (2, 2, "calls"),
                (3, 44, "imports"),
                (44, 3, "calls"),
            ],
            &[0],
        );
        let svg = svg(&data);
        let edges: Vec<String> = titles(&svg, "edge")
            .iter()
            .map(|t| t.split(" (").next().unwrap().to_string())
            .collect();
        assert_eq!(
            edges,
            [
                "src/m0.py —imports→ src/m1.py",
                "src/m0.py —calls→ src/m1.py",
                "src/m1.py —imports→ src/m0.py"
            ]
        );
        assert_eq!(texts(&svg, "edge-label"), ["imports, calls"]);
    }

    #[test]
    fn hostile_paths_are_escaped_and_shortened() {
        let long = format!("long/{}.py", "n".repeat(10_000));
        let nasty = [
            "x/<script>alert(\"1\")</script>.py",
            "a&b/'quoted'/\"double\".py",
            "ctl/\u{0}\u{7}\u{1b}[31m/new\nline\u{202e}gnp.exe",
            long.as_str(),
            "]]><!--&amp;-->.py",
        ];
        let data = json!({
            "files": nasty.iter().enumerate()
                .map(|(k, p)| json!({"path": p, "role": "<b>role</b>", "anchor": k == 0}))
                .collect::<Vec<_>>(),
            "relations": [{"from": nasty[0], "to": nasty[1], "relation": "<imports>",
                           "rationale": "</title>"}],
        });
        let svg = svg(&data);
        assert!(!svg.contains("<script") && !svg.contains("<b>") && !svg.contains("<imports>"));
        let shown = titles(&svg, "node");
        assert_eq!(shown[0], nasty[0]);
        assert_eq!(shown[1], nasty[1]);
        assert_eq!(shown[4], nasty[4]);
        assert!(!shown[2].contains('\u{0}') && !shown[2].contains('\u{202e}'));
        assert!(shown[2].contains('\u{fffd}') && !shown[2].contains('\n'));
        assert!(shown[3].chars().count() <= TITLE_CHARS && shown[3].ends_with("nnn.py"));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        for node in doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("node"))
        {
            let label = node.children().find(|c| c.has_tag_name("text")).unwrap();
            assert!(label.text().unwrap_or("").chars().count() <= LABEL_CHARS);
        }
        assert!(
            titles(&svg, "edge")[0].starts_with(&format!("{} —<imports>→ {}", nasty[0], nasty[1]))
        );
    }

    #[test]
    fn at_most_forty_files_and_forty_relations_are_drawn_and_the_rest_counted() {
        let pairs: Vec<(usize, usize, &str)> = (0..10)
            .flat_map(|a| (0..10).map(move |b| (a, b, "calls")))
            .collect();
        let svg = svg(&synthetic(1000, &pairs, &[0]));
        let expected: Vec<String> = (0..MAX_FILES).map(|k| format!("src/m{k}.py")).collect();
        assert_eq!(titles(&svg, "node"), expected);
        assert_eq!(titles(&svg, "edge").len(), MAX_RELATIONS);
        // 100 pairs, 10 of them a file to itself.
        assert!(
            svg.contains("960 more files not drawn") && svg.contains("50 more relations not drawn")
        );
    }

    #[test]
    fn empty_packages_and_packages_without_anchors_draw() {
        for data in [
            json!({}),
            json!({"files": [], "relations": []}),
            json!({"files": 3}),
        ] {
            let svg = svg(&data);
            assert!(titles(&svg, "node").is_empty() && svg.contains("no files selected"));
        }
        let svg = svg(&synthetic(3, &[(1, 0, "imports")], &[]));
        assert_eq!(titles(&svg, "node").len(), 3);
        assert!(titles(&svg, "anchor").is_empty());
        assert_eq!(
            texts(&svg, "layer"),
            [
                "best file",
                "1 relation from the best file",
                "no relation to the best file"
            ]
        );
    }

    #[test]
    fn the_same_package_gives_the_same_bytes() {
        let pairs: Vec<(usize, usize, &str)> =
            (0..60).map(|k| (k, (k * 7) % 60, "calls")).collect();
        let big = synthetic(60, &pairs, &[0, 5]);
        assert_eq!(svg(&big), svg(&big.clone()));
        // Every routing case: same row, next row, rows apart; up and down.
        let svg = svg(&big);
        let drawable = pairs
            .iter()
            .filter(|(a, b, _)| a != b && *a < MAX_FILES && *b < MAX_FILES)
            .count();
        assert_eq!(titles(&svg, "edge").len(), drawable);
        assert!(svg.contains(" L") && svg.contains(" C"));
    }

    #[test]
    fn numbers_are_written_one_way() {
        assert_eq!(num(20.0), "20");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(151.96), "152");
    }
}
