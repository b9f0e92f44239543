package io.falcon.embedded;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database server outside the JVM, given by a JDBC URL ({@code jdbc:mysql://host:port} or {@code
 * jdbc:mariadb://host:port}, any path or parameters ignored), a user allowed to create databases and read the binlog,
 * and its password. The URL's scheme is the flavor: {@code jdbc:mysql} is MySQL (Debezium's MySQL connector, the MySQL
 * JDBC driver), {@code jdbc:mariadb} MariaDB.
 */
public record ExternalDatabase(Flavor flavor, String host, int port, String user, String password) implements Database {
    private static final Pattern URL = Pattern.compile("^jdbc:(mysql|mariadb)://([^:/?]+)(?::(\\d+))?(?:[/?].*)?$");
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_$]+");

    public static ExternalDatabase of(String jdbcUrl, String user, String password) {
        Matcher m = URL.matcher(jdbcUrl == null ? "" : jdbcUrl.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "not a jdbc:mysql://HOST[:PORT] or jdbc:mariadb://HOST[:PORT] URL: '" + jdbcUrl + "'");
        }
        return new ExternalDatabase(
                m.group(1).equals("mysql") ? Flavor.MYSQL : Flavor.MARIADB,
                m.group(2),
                m.group(3) == null ? 3306 : Integer.parseInt(m.group(3)),
                user,
                password);
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:" + flavor.setting() + "://" + host + ":" + port + "/" + database;
    }

    @Override
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), user, password);
    }

    @Override
    public void createDatabase(String name) {
        if (!SAFE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not a safe database name: '" + name + "'");
        }
        try (Connection c = connect("");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS `" + name + "` CHARACTER SET utf8mb4");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + jdbcUrl(""), e);
        }
    }

    @Override
    public String toString() {
        return "ExternalDatabase[" + jdbcUrl("") + " as " + user + "]";
    }
}
