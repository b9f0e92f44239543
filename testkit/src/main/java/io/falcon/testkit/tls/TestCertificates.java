package io.falcon.testkit.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Throwaway TLS material for tests, made with the JDK's keytool (no extra library): a broker key pair whose
 * certificate names 127.0.0.1 and localhost (so clients verify the host name as in production), a client key pair,
 * and trust stores that trust each. Self-signed, valid for two days, EC keys (fast to make). All stores are PKCS12
 * with one password.
 *
 * @param brokerKeyStore the broker's certificate and key
 * @param brokerTrustStore trusts the client's certificate (the broker's store of client CAs)
 * @param clientKeyStore the client's certificate and key (its principal is User:CN=falcon-test-client)
 * @param clientTrustStore trusts the broker's certificate
 */
public record TestCertificates(
        Path brokerKeyStore, Path brokerTrustStore, Path clientKeyStore, Path clientTrustStore, String password) {

    /** The Kafka principal of a client authenticated by {@link #clientKeyStore}. */
    public static final String CLIENT_PRINCIPAL = "User:CN=falcon-test-client";

    @Override
    public String toString() {
        return "TestCertificates[" + brokerKeyStore.getParent() + "]";
    }

    /**
     * The broker's certificate as PEM, for a server that reads PEM files (MariaDB's {@code ssl-cert}): any TLS server
     * on 127.0.0.1 can use the broker's key pair, which {@link #clientTrustStore} trusts.
     */
    public Path brokerCertificatePem() {
        return brokerKeyStore.resolveSibling("broker.pem");
    }

    /** The broker's private key as PKCS#8 PEM (MariaDB's {@code ssl-key}), written next to its store when asked. */
    public Path brokerPrivateKeyPem() {
        Path pem = brokerKeyStore.resolveSibling("broker-key.pem");
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(brokerKeyStore)) {
            java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            java.security.Key key = store.getKey("key", password.toCharArray());
            String body = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(key.getEncoded());
            java.nio.file.Files.writeString(
                    pem, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n");
            return pem;
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot export the broker's key from " + brokerKeyStore, e);
        }
    }

    /** Makes the four stores in {@code dir}. */
    public static TestCertificates generate(Path dir) {
        String password = "test-" + Long.toHexString(System.nanoTime());
        Path brokerKey = dir.resolve("broker.p12");
        Path brokerTrust = dir.resolve("broker-trust.p12");
        Path clientKey = dir.resolve("client.p12");
        Path clientTrust = dir.resolve("client-trust.p12");
        Path brokerCert = dir.resolve("broker.pem");
        Path clientCert = dir.resolve("client.pem");
        keyPair(brokerKey, "CN=localhost", List.of("-ext", "SAN=ip:127.0.0.1,dns:localhost"), password);
        keyPair(clientKey, "CN=falcon-test-client", List.of(), password);
        export(brokerKey, brokerCert, password);
        export(clientKey, clientCert, password);
        trust(clientTrust, brokerCert, password);
        trust(brokerTrust, clientCert, password);
        return new TestCertificates(brokerKey, brokerTrust, clientKey, clientTrust, password);
    }

    private static void keyPair(Path store, String name, List<String> extensions, String password) {
        List<String> args = new ArrayList<>(List.of(
                "-genkeypair",
                "-alias",
                "key",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-sigalg",
                "SHA256withECDSA",
                "-validity",
                "2",
                "-dname",
                name));
        args.addAll(extensions);
        args.addAll(List.of("-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", password));
        keytool(args);
    }

    private static void export(Path store, Path certificate, String password) {
        keytool(List.of(
                "-exportcert",
                "-rfc",
                "-alias",
                "key",
                "-keystore",
                store.toString(),
                "-storepass",
                password,
                "-file",
                certificate.toString()));
    }

    private static void trust(Path store, Path certificate, String password) {
        keytool(List.of(
                "-importcert",
                "-noprompt",
                "-alias",
                "trusted",
                "-file",
                certificate.toString(),
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password));
    }

    private static void keytool(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(args);
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + args.get(0) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}
