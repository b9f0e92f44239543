package io.falcon.console.view;

import java.time.Instant;
import java.util.List;

/**
 * One decision of the ledger told for a person: when, a short headline ("Placed on c1 (edge-a)"), the ledger's own
 * sentence, and details (each cluster weighed and why).
 */
public record StoryLine(Instant at, String headline, String text, List<String> details) {
    public StoryLine {
        details = List.copyOf(details);
    }
}
