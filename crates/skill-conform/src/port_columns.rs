//! Port columns: the id each requested port's results go by. A port selected once is its name
//! (`python`); a port selected in several versions gets one column per version, named
//! `NAME@VERSION` — the pinned version of `ports.toml` for the request without one
//! (`--port python@0.18.1 --port python` gives `python@0.18.1` and `python@0.21.0`), and
//! `NAME@local` for a local checkout. Each column keeps the port's adapter, caches and
//! `expected.toml`, whose `versions` ranges apply to the version each column reports.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::port::{PortRequest, PortSpec};

/// The column of `request` when its port is selected more than once.
fn versioned(request: &PortRequest, specs: &BTreeMap<String, PortSpec>) -> String {
    match request {
        PortRequest::Named {
            name,
            version: Some(version),
            path: None,
        } => format!("{name}@{version}"),
        PortRequest::Named {
            name, path: None, ..
        } => match specs.get(name) {
            Some(spec) => format!("{name}@{}", spec.version),
            None => name.clone(),
        },
        PortRequest::Named { name, .. } => format!("{name}@local"),
        PortRequest::Command { name, .. } => name.clone(),
    }
}

/// Each request with its column; two requests with the same column are a usage error.
pub fn columns(
    requests: Vec<PortRequest>,
    specs: &BTreeMap<String, PortSpec>,
) -> Result<Vec<(PortRequest, String)>, Error> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for request in &requests {
        *count.entry(request.name()).or_default() += 1;
    }
    let columns: Vec<String> = requests
        .iter()
        .map(|request| {
            if count[request.name()] > 1 {
                versioned(request, specs)
            } else {
                request.name().to_owned()
            }
        })
        .collect();
    let mut seen = BTreeSet::new();
    for column in &columns {
        if !seen.insert(column.as_str()) {
            return Err(Error::Usage(format!(
                "port `{column}` is selected twice (hint: select one port in several versions as --port NAME@VERSION)"
            )));
        }
    }
    Ok(requests.into_iter().zip(columns).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> BTreeMap<String, PortSpec> {
        let text = r#"
            [ports.python]
            language = "Python"
            version = "0.21.0"
            setup = []
            run = ["python"]
        "#;
        let file: crate::port::PortsFile = toml::from_str(text).unwrap();
        file.ports
    }

    fn parse(text: &str) -> PortRequest {
        PortRequest::parse_port(text).unwrap()
    }

    #[test]
    fn one_port_in_two_versions_gets_two_versioned_columns() {
        let got = columns(
            vec![parse("reference"), parse("python@0.18.1"), parse("python")],
            &specs(),
        )
        .unwrap();
        let names: Vec<&str> = got.iter().map(|(_, column)| column.as_str()).collect();
        assert_eq!(names, ["reference", "python@0.18.1", "python@0.21.0"]);
        let single = columns(vec![parse("python@0.18.1")], &specs()).unwrap();
        assert_eq!(single[0].1, "python");
    }

    #[test]
    fn the_same_column_twice_is_refused() {
        for pair in [["python", "python"], ["python", "python@0.21.0"]] {
            let err = columns(pair.map(parse).to_vec(), &specs()).unwrap_err();
            assert!(err.to_string().starts_with("port `python"), "{err}");
        }
    }
}
