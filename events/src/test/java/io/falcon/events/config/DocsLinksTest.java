package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user documentation (README.md, docs/*.md and the modules' README.md) is a set of references: every relative link
 * in it leads to a file that exists (and, with a {@code #anchor}, to a heading of that page, by GitHub's anchor rule),
 * every page of docs/ is reachable from the index docs/README.md, and no page sends its reader to an issue number.
 */
class DocsLinksTest {
    private static final Path ROOT = Path.of("..");
    /** A markdown link or image, {@code [text](target "title")}, or a reference definition {@code [ref]: target}. */
    private static final Pattern LINK = Pattern.compile(
            "!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)|(?m)^ {0,3}\\[[^\\]]+]:\\s+(\\S+)");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    /**
     * An issue named as a reference: "issue 12", "Issues 17 and 18", "PR 3", or "#12" on its own. A queue position as
     * Falcon's messages print it ("队列位置 #3", "position #3") is not one.
     */
    private static final Pattern ISSUE = Pattern.compile(
            "(?i)\\b(?:issues?|pr|pull request)\\s+#?\\d+|(?<![\\w&/#]|位置 |position )#\\d+\\b",
            Pattern.UNICODE_CHARACTER_CLASS);

    /** README.md, every page directly in docs/, and each module's README.md. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(m -> m.resolve("README.md"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .forEach(pages::add);
        }
        return pages;
    }

    /** The page without its fenced code blocks and inline code, which hold commands and output, not links or prose. */
    static String prose(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                out.append('\n');
                continue;
            }
            out.append(fenced ? "" : line.replaceAll("`[^`]*`", "``")).append('\n');
        }
        return out.toString();
    }

    /** The anchors GitHub gives the page's headings: lowercase, punctuation dropped, spaces as '-', repeats -1, -2. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (fenced || !heading.matches()) {
                continue;
            }
            String slug = slug(heading.group(2));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1"); // a link in a heading: its text
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
                .replace(' ', '-');
    }

    /** Every relative link of the page that does not lead to an existing file, or to a heading of its page. */
    static List<String> brokenLinks(Path page) throws IOException {
        String markdown = Files.readString(page);
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(prose(markdown));
        while (m.find()) {
            String target = m.group(1) != null ? m.group(1) : m.group(2);
            if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                continue; // https:, mailto: and the like: not this repository's
            }
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? null : target.substring(hash + 1);
            Path resolved =
                    file.isEmpty() ? page : page.getParent().resolve(file).normalize();
            if (!Files.exists(resolved)) {
                broken.add(page + ": " + target + " (no file " + resolved + ")");
            } else if (anchor != null) {
                if (!resolved.toString().endsWith(".md") || Files.isDirectory(resolved)) {
                    broken.add(page + ": " + target + " (an anchor into a file that is not a markdown page)");
                } else if (!anchors(Files.readString(resolved)).contains(anchor)) {
                    broken.add(page + ": " + target + " (no heading with anchor #" + anchor + " in " + resolved
                            + "; it has " + anchors(Files.readString(resolved)) + ")");
                }
            }
        }
        return broken;
    }

    static List<String> issueReferences(Path page) throws IOException {
        List<String> found = new ArrayList<>();
        String[] lines = prose(Files.readString(page)).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = ISSUE.matcher(lines[i]);
            while (m.find()) {
                found.add(page + ":" + (i + 1) + ": \"" + m.group() + "\"");
            }
        }
        return found;
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndEveryAnchorToAHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            broken.addAll(brokenLinks(page));
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void noPageNamesAnIssueNumber() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path page : pages()) {
            found.addAll(issueReferences(page));
        }
        assertThat(found)
                .as("the docs say what is; how it came to be is in git log, not in issue numbers")
                .isEmpty();
    }

    @Test
    void everyPageOfDocsIsLinkedFromTheIndexAndTheIndexFromTheReadme() throws IOException {
        Path index = ROOT.resolve("docs/README.md");
        assertThat(index).exists();
        Set<Path> linked = new LinkedHashSet<>();
        Matcher m = LINK.matcher(prose(Files.readString(index)));
        while (m.find()) {
            String target = m.group(1) != null ? m.group(1) : m.group(2);
            linked.add(index.getParent().resolve(target.replaceAll("#.*", "")).normalize());
        }
        List<Path> unlinked = new ArrayList<>();
        for (Path page : pages()) {
            if (page.getParent().normalize().equals(ROOT.resolve("docs").normalize())
                    && !page.normalize().equals(index.normalize())
                    && !linked.contains(page.normalize())) {
                unlinked.add(page);
            }
        }
        assertThat(unlinked)
                .as("docs pages the index docs/README.md does not link")
                .isEmpty();
        assertThat(Files.readString(ROOT.resolve("README.md"))).contains("(docs/README.md)");
    }

    @Test
    void theRulesThemselves() {
        assertThat(slug("Goodput at GKE timings")).isEqualTo("goodput-at-gke-timings");
        assertThat(slug("Secrets in `spec.env`")).isEqualTo("secrets-in-specenv");
        assertThat(slug("Recovery: who moves each phase on, and what fires if nothing does"))
                .isEqualTo("recovery-who-moves-each-phase-on-and-what-fires-if-nothing-does");
        assertThat(slug("fault-streams: a storm (n = 1,000)")).isEqualTo("fault-streams-a-storm-n--1000");
        assertThat(anchors("# A\n## A\n```\n## B\n```\n## C ##\n")).containsExactly("a", "a-1", "c");
        assertThat(ISSUE.matcher("as issue 17 said").find()).isTrue();
        assertThat(ISSUE.matcher("Issue 12 B").find()).isTrue();
        assertThat(ISSUE.matcher("fixed in #42.").find()).isTrue();
        assertThat(ISSUE.matcher("队列位置 #3,前面有 2 个任务").find()).isFalse();
        assertThat(ISSUE.matcher("queue c1/2x4, position #3").find()).isFalse();
        assertThat(ISSUE.matcher("see [x](a.md#kafka-security)").find()).isFalse();
        assertThat(prose("a `issue 1` b\n```\nissue 2\n```\nc")).doesNotContain("issue");
    }
}
