package io.falcon.local.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class path the image runs a module with ({@code /falcon/classpath/MODULE}, see the Dockerfile), here from the
 * build's own output: the module's jar, then the jars of its runtime scope as the build lists them in
 * {@code MODULE/target/runtime-classpath.txt} (the parent pom's {@code runtime-classpath} execution, in the package
 * phase). Nothing else: no test jar, no sibling that is not a runtime dependency, not the supervisor's class path.
 */
public final class ImageClassPath {
    public static final String FILE = "target/runtime-classpath.txt";

    private ImageClassPath() {}

    /** The module's class path, its jar first; fails naming what is missing when the module was not packaged. */
    public static String of(Path repositoryRoot, String module) {
        Path moduleDir = repositoryRoot.resolve(module);
        Path listing = moduleDir.resolve(FILE);
        if (!Files.isRegularFile(listing)) {
            throw new IllegalStateException(listing + " is missing: package the build first (mvn -DskipTests package;"
                    + " ./falcon-local and bench/chaos do)");
        }
        Path jar = jar(moduleDir, module);
        try {
            String dependencies =
                    Files.readString(listing, StandardCharsets.UTF_8).strip();
            return dependencies.isEmpty() ? jar.toString() : jar + java.io.File.pathSeparator + dependencies;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + listing, e);
        }
    }

    private static Path jar(Path moduleDir, String module) {
        Path target = moduleDir.resolve("target");
        List<Path> jars;
        try (Stream<Path> files = Files.list(target)) {
            jars = files.filter(f -> {
                        String name = f.getFileName().toString();
                        return name.startsWith(module + "-")
                                && name.endsWith(".jar")
                                && !name.endsWith("-tests.jar")
                                && !name.endsWith("-sources.jar")
                                && !name.endsWith("-javadoc.jar");
                    })
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + target, e);
        }
        if (jars.size() != 1) {
            throw new IllegalStateException("expected one jar of " + module + " in " + target + ", found " + jars
                    + ": package the build first (mvn -DskipTests package)");
        }
        return jars.get(0);
    }
}
