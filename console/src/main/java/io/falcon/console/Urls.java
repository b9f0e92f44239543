package io.falcon.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Values put into URLs (a job id in a path, a filter in a query), encoded; the template escapes the URL again. */
public final class Urls {
    private Urls() {}

    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public static String job(String jobId) {
        return "/jobs/" + encode(jobId);
    }
}
