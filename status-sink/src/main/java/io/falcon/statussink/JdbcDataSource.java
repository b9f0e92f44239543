package io.falcon.statussink;

import io.falcon.events.security.DatabaseTls;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connections as the status-sink opens them (its own writes, Flyway's migration, the readiness check): the URL, the
 * user and password and the TLS properties ({@link DatabaseTls}) handed to the driver, never put in the URL.
 */
final class JdbcDataSource implements DataSource {
    private final String url;
    private final String user;
    private final String password;
    private final DatabaseTls tls;

    JdbcDataSource(String url, String user, String password, DatabaseTls tls) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.tls = tls;
    }

    static JdbcDataSource of(StatusSinkConfig config) {
        return new JdbcDataSource(config.jdbcUrl(), config.dbUser(), config.dbPassword(), config.dbTls());
    }

    @Override
    public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(url, tls.jdbcProperties(url, user, password));
    }

    @Override
    public Connection getConnection(String otherUser, String otherPassword) throws SQLException {
        return DriverManager.getConnection(url, tls.jdbcProperties(url, otherUser, otherPassword));
    }

    @Override
    public PrintWriter getLogWriter() {
        return DriverManager.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        DriverManager.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) {
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }

    @Override
    public String toString() {
        return "JdbcDataSource[" + url + " as " + user + ", tls " + tls.mode() + "]";
    }
}
