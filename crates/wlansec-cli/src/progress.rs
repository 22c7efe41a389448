//! Progress of a long run on stderr: one line redrawn in place on a terminal; a plain line
//! per tenth of the run otherwise, so a log or CI output gets no carriage returns.

use std::io::{IsTerminal, Write};

pub struct Progress {
    total: usize,
    terminal: bool,
    tenths_shown: usize,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        Progress { total, terminal: std::io::stderr().is_terminal(), tenths_shown: 0 }
    }

    /// Item `n` (counting from 1) of the run, named `label`, starts.
    pub fn step(&mut self, n: usize, label: &str) {
        if self.terminal {
            eprint!("\r[{n:>3}/{}] {label:<48}", self.total);
            let _ = std::io::stderr().flush();
            return;
        }
        let tenths = n * 10 / self.total.max(1);
        if n == 1 || tenths > self.tenths_shown {
            self.tenths_shown = tenths;
            eprintln!("[{n:>3}/{}] {}", self.total, label.trim_end());
        }
    }

    /// The run is over: end the redrawn line.
    pub fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
