package io.falcon.console.view;

import java.util.List;
import java.util.Optional;

/** The job search: the filter as given, one page of matching jobs newest first. */
public record JobsPage(JobFilter filter, List<ListedJob> jobs, Optional<Cursor> next) {
    public JobsPage {
        jobs = List.copyOf(jobs);
    }
}
