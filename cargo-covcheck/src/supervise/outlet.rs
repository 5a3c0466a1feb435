//! Where one property's campaign sends what happens: the reporters' event
//! stream, and the campaign's series (its progress over time and its
//! findings) for the coverage report. Its lanes and its findings both write
//! here, so it is a value of its own that both borrow.

use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::Instant;

use covcheck_protocol::worker::Progress;

use crate::discover::Property;
use crate::events::{Event, Update};
use crate::reach::model::{FindingMark, SeriesPoint};
use crate::reach::series::{SeriesWriter, series_path};

use super::Settings;
use super::paths::property_key;

pub struct Outlet<'a, 's> {
    index: usize,
    pub property: &'a Property,
    events: &'s Sender<Event<'a>>,
    series: Mutex<SeriesWriter>,
    /// When the campaign started: times are measured from here.
    pub started: Instant,
}

impl<'a, 's> Outlet<'a, 's> {
    pub fn new(
        index: usize,
        property: &'a Property,
        settings: &Settings,
        events: &'s Sender<Event<'a>>,
    ) -> Outlet<'a, 's> {
        let series =
            SeriesWriter::new(series_path(&settings.covcheck_dir, &property_key(property)));
        Outlet {
            index,
            property,
            events,
            series: Mutex::new(series),
            started: Instant::now(),
        }
    }

    pub fn send(&self, update: Update) {
        let _ = self.events.send(Event::Campaign {
            index: self.index,
            property: self.property,
            update,
        });
    }

    /// Notes the campaign's progress in its series.
    pub fn record(&self, progress: &Progress) {
        let point = SeriesPoint {
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            execs: progress.execs,
            edges: progress.edges as u64,
            corpus: progress.corpus as u64,
        };
        let problem = self.series().point(point);
        self.warn_if(problem);
    }

    /// Notes a finding in the campaign's series.
    pub fn mark(&self, mark: &FindingMark) {
        let problem = self.series().finding(mark);
        self.warn_if(problem);
    }

    fn series(&self) -> std::sync::MutexGuard<'_, SeriesWriter> {
        self.series.lock().expect("no panics while held")
    }

    fn warn_if(&self, problem: Option<String>) {
        if let Some(problem) = problem {
            self.send(Update::Warning(problem));
        }
    }
}
