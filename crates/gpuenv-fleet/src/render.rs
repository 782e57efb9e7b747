//! Renderers of a [`FleetView`]: `human` (terminal text), `json` (`gpuenv.fleet/1`), `markdown`
//! (tables for an issue or a wiki) and `html` (one self-contained page: no network, inline CSS and
//! script, the node × layer matrix with differing cells marked, filterable). Each writes to any
//! `Write`.

use std::io::{self, Write};

use crate::FleetView;

const NONE: &str = "—";

fn cell_text(v: &Option<String>) -> &str {
    match v {
        Some(s) if !s.is_empty() => s,
        _ => NONE,
    }
}

/// `gpuenv.fleet/1` JSON, one object.
pub fn json(out: &mut dyn Write, view: &FleetView) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, view)?;
    writeln!(out)
}

fn headline(view: &FleetView) -> String {
    format!(
        "{} nodes, {} distinct stacks, {} with error findings, {} reports not used",
        view.nodes,
        view.groups.len(),
        view.nodes_with_errors,
        view.problems.len()
    )
}

fn list(hosts: &[String], max: usize) -> String {
    if hosts.len() <= max {
        hosts.join(", ")
    } else {
        format!(
            "{} and {} more",
            hosts.get(..max).unwrap_or(hosts).join(", "),
            hosts.len() - max
        )
    }
}

/// Terminal text: the columns' majorities and outliers, error findings, stack groups, problems,
/// then (up to `max_rows` nodes) the matrix, differing cells marked with `*`.
pub fn human(out: &mut dyn Write, view: &FleetView, max_rows: usize) -> io::Result<()> {
    writeln!(out, "gpuenv fleet: {}", headline(view))?;
    writeln!(out)?;
    writeln!(out, "Layers (majority value, and the nodes that differ):")?;
    let width = view.columns.iter().map(|c| c.name.len()).max().unwrap_or(6);
    for c in &view.columns {
        writeln!(
            out,
            "  {:width$}  {} ({}/{} nodes)",
            c.name,
            cell_text(&c.majority),
            c.majority_nodes,
            view.nodes
        )?;
        for v in c.values.iter().skip(1) {
            let hosts: Vec<String> = view
                .rows
                .iter()
                .zip(0..)
                .filter(|(r, _)| {
                    let i = view.columns.iter().position(|x| x.name == c.name);
                    i.and_then(|i| r.cells.get(i)) == Some(&v.value)
                })
                .map(|(r, _)| r.host.clone())
                .collect();
            writeln!(
                out,
                "  {:width$}    differs: {} on {}",
                "",
                cell_text(&v.value),
                list(&hosts, 8)
            )?;
        }
    }
    if !view.error_findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "Error findings:")?;
        for f in &view.error_findings {
            writeln!(
                out,
                "  {} on {} node(s): {}",
                f.finding,
                f.nodes,
                list(&f.hosts, 8)
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "Stacks (nodes with identical stacks):")?;
    for g in &view.groups {
        writeln!(
            out,
            "  #{} {} node(s): {}",
            g.group,
            g.nodes,
            list(&g.hosts, 8)
        )?;
    }
    if !view.problems.is_empty() {
        writeln!(out)?;
        writeln!(out, "Reports not used:")?;
        for p in &view.problems {
            writeln!(out, "  {} ({}): {}", p.origin, p.kind, p.message)?;
        }
    }
    if view.rows.len() <= max_rows && !view.rows.is_empty() {
        writeln!(out)?;
        writeln!(out, "Nodes (* differs from the majority):")?;
        let mut widths: Vec<usize> = view.columns.iter().map(|c| c.name.len()).collect();
        let host_w = view
            .rows
            .iter()
            .map(|r| r.host.len())
            .max()
            .unwrap_or(4)
            .max(4);
        for r in &view.rows {
            for (i, c) in r.cells.iter().enumerate() {
                if let Some(w) = widths.get_mut(i) {
                    *w = (*w).max(cell_text(c).chars().count() + 1);
                }
            }
        }
        write!(out, "  {:host_w$}  {:5}", "host", "stack")?;
        for (c, w) in view.columns.iter().zip(&widths) {
            write!(out, "  {:w$}", c.name)?;
        }
        writeln!(out, "  errors")?;
        for r in &view.rows {
            write!(out, "  {:host_w$}  #{:<4}", r.host, r.group)?;
            for ((c, d), w) in r.cells.iter().zip(&r.differs).zip(&widths) {
                let text = format!("{}{}", cell_text(c), if *d { "*" } else { "" });
                let pad = w.saturating_sub(text.chars().count());
                write!(out, "  {text}{}", " ".repeat(pad))?;
            }
            writeln!(out, "  {}", r.error_findings.join(", "))?;
        }
    } else if !view.rows.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "({} nodes: the per-node matrix is in --format html, markdown or json)",
            view.rows.len()
        )?;
    }
    Ok(())
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown: a summary table, error findings, groups, problems and the node matrix.
pub fn markdown(out: &mut dyn Write, view: &FleetView) -> io::Result<()> {
    writeln!(out, "# gpuenv fleet\n\n{}\n", headline(view))?;
    writeln!(out, "| layer | majority | nodes | differing nodes |")?;
    writeln!(out, "| --- | --- | --- | --- |")?;
    for c in &view.columns {
        writeln!(
            out,
            "| {} | {} | {}/{} | {} |",
            md(&c.name),
            md(cell_text(&c.majority)),
            c.majority_nodes,
            view.nodes,
            md(&list(&c.differing, 20))
        )?;
    }
    if !view.error_findings.is_empty() {
        writeln!(out, "\n## Error findings\n")?;
        for f in &view.error_findings {
            writeln!(
                out,
                "- `{}` on {} node(s): {}",
                f.finding,
                f.nodes,
                md(&list(&f.hosts, 20))
            )?;
        }
    }
    writeln!(out, "\n## Stacks\n")?;
    for g in &view.groups {
        writeln!(
            out,
            "- #{}: {} node(s): {}",
            g.group,
            g.nodes,
            md(&list(&g.hosts, 20))
        )?;
    }
    if !view.problems.is_empty() {
        writeln!(out, "\n## Reports not used\n")?;
        for p in &view.problems {
            writeln!(
                out,
                "- `{}` ({}): {}",
                md(&p.origin),
                p.kind,
                md(&p.message)
            )?;
        }
    }
    writeln!(
        out,
        "\n## Nodes\n\nCells in **bold** differ from the majority.\n"
    )?;
    write!(out, "| host | stack |")?;
    for c in &view.columns {
        write!(out, " {} |", md(&c.name))?;
    }
    writeln!(out, " error findings |")?;
    write!(out, "| --- | --- |")?;
    for _ in &view.columns {
        write!(out, " --- |")?;
    }
    writeln!(out, " --- |")?;
    for r in &view.rows {
        write!(out, "| {} | #{} |", md(&r.host), r.group)?;
        for (c, d) in r.cells.iter().zip(&r.differs) {
            if *d {
                write!(out, " **{}** |", md(cell_text(c)))?;
            } else {
                write!(out, " {} |", md(cell_text(c)))?;
            }
        }
        writeln!(out, " {} |", md(&r.error_findings.join(", ")))?;
    }
    Ok(())
}

/// HTML-escapes text for element content and attribute values.
fn h(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a1a1a;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.3em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0;position:sticky;top:0}
td.differs{background:#ffd7a8;font-weight:600}
td.differs::after{content:" \25B2";color:#b35900;font-size:.8em}
tr.errors td.host{background:#f8c4c4}
td.err{color:#a00000}
.controls{display:flex;gap:1em;align-items:center;margin:.6em 0;flex-wrap:wrap}
.controls input[type=search]{padding:.3em;min-width:18em}
.muted{color:#666}.count{font-weight:600}
"#;

const SCRIPT: &str = r#"
(function(){
  var q=document.getElementById('q'),d=document.getElementById('only-differs'),
      e=document.getElementById('only-errors'),n=document.getElementById('shown'),
      rows=Array.prototype.slice.call(document.querySelectorAll('#matrix tbody tr'));
  function apply(){
    var text=q.value.toLowerCase(),shown=0;
    rows.forEach(function(r){
      var ok=(!text||r.textContent.toLowerCase().indexOf(text)>=0)&&
             (!d.checked||r.classList.contains('has-differs'))&&
             (!e.checked||r.classList.contains('errors'));
      r.style.display=ok?'':'none'; if(ok)shown++;
    });
    n.textContent=shown;
  }
  var h=decodeURIComponent(location.hash.replace(/^#/,'')).split('&');
  h.forEach(function(p){
    if(p==='differs')d.checked=true;
    else if(p==='errors')e.checked=true;
    else if(p.indexOf('q=')===0)q.value=p.slice(2);
  });
  q.addEventListener('input',apply);d.addEventListener('change',apply);e.addEventListener('change',apply);
  apply();
})();
"#;

/// One self-contained HTML page (no external resources): summary, error findings, groups,
/// problems, and the filterable node × layer matrix. The page's fragment sets the initial filter:
/// `#differs`, `#errors`, `#q=TEXT` (joined with `&`).
pub fn html(out: &mut dyn Write, view: &FleetView) -> io::Result<()> {
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
         <title>gpuenv fleet: {} nodes</title><style>{STYLE}</style></head><body>",
        view.nodes
    )?;
    writeln!(
        out,
        "<h1>gpuenv fleet</h1><p class=\"muted\">{}</p>",
        h(&headline(view))
    )?;
    writeln!(out, "<h2>Layers</h2><table id=\"layers\"><thead><tr><th>layer</th><th>majority</th><th>nodes</th><th>differing nodes</th></tr></thead><tbody>")?;
    for c in &view.columns {
        writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td></tr>",
            h(&c.name),
            h(cell_text(&c.majority)),
            c.majority_nodes,
            view.nodes,
            h(&list(&c.differing, 30))
        )?;
    }
    writeln!(out, "</tbody></table>")?;
    if !view.error_findings.is_empty() {
        writeln!(out, "<h2>Error findings</h2><ul id=\"findings\">")?;
        for f in &view.error_findings {
            writeln!(
                out,
                "<li><code>{}</code> on {} node(s): {}</li>",
                h(&f.finding),
                f.nodes,
                h(&list(&f.hosts, 30))
            )?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(out, "<h2>Stacks</h2><ul id=\"groups\">")?;
    for g in &view.groups {
        writeln!(
            out,
            "<li>#{}: {} node(s): {}</li>",
            g.group,
            g.nodes,
            h(&list(&g.hosts, 30))
        )?;
    }
    writeln!(out, "</ul>")?;
    if !view.problems.is_empty() {
        writeln!(out, "<h2>Reports not used</h2><ul id=\"problems\">")?;
        for p in &view.problems {
            writeln!(
                out,
                "<li><code>{}</code> ({}): {}</li>",
                h(&p.origin),
                p.kind,
                h(&p.message)
            )?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(
        out,
        "<h2>Nodes</h2><div class=\"controls\"><input type=\"search\" id=\"q\" placeholder=\"filter: host, version, finding\">\
         <label><input type=\"checkbox\" id=\"only-differs\"> only nodes that differ</label>\
         <label><input type=\"checkbox\" id=\"only-errors\"> only nodes with errors</label>\
         <span><span id=\"shown\" class=\"count\">{}</span> of {} shown</span></div>",
        view.rows.len(),
        view.rows.len()
    )?;
    write!(
        out,
        "<table id=\"matrix\"><thead><tr><th>host</th><th>stack</th>"
    )?;
    for c in &view.columns {
        write!(out, "<th>{}</th>", h(&c.name))?;
    }
    writeln!(out, "<th>error findings</th></tr></thead><tbody>")?;
    for r in &view.rows {
        let mut classes = Vec::new();
        if r.errors > 0 {
            classes.push("errors");
        }
        if r.differs.iter().any(|d| *d) {
            classes.push("has-differs");
        }
        write!(
            out,
            "<tr class=\"{}\" data-host=\"{}\"><td class=\"host\">{}</td><td>#{}</td>",
            classes.join(" "),
            h(&r.host),
            h(&r.host),
            r.group
        )?;
        for (c, d) in r.cells.iter().zip(&r.differs) {
            if *d {
                write!(out, "<td class=\"differs\">{}</td>", h(cell_text(c)))?;
            } else {
                write!(out, "<td>{}</td>", h(cell_text(c)))?;
            }
        }
        writeln!(
            out,
            "<td class=\"err\">{}</td></tr>",
            h(&r.error_findings.join(", "))
        )?;
    }
    writeln!(
        out,
        "</tbody></table><script>{SCRIPT}</script></body></html>"
    )?;
    Ok(())
}
