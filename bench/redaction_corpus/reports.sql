-- Weekly reports for the finance team (MySQL 8, the legacy reports database).
-- Run by scripts/reports.sh with credentials from ~/.my.cnf.

SET @week_start = DATE_SUB(CURDATE(), INTERVAL WEEKDAY(CURDATE()) + 7 DAY);
SET @week_end = DATE_ADD(@week_start, INTERVAL 7 DAY);

CREATE TABLE IF NOT EXISTS report_runs (
    id          BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
    report      VARCHAR(64) NOT NULL,
    started_at  DATETIME(3) NOT NULL,
    finished_at DATETIME(3),
    row_count   INT UNSIGNED,
    sha256      CHAR(64),
    KEY report_runs_report_idx (report, started_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Revenue per day and currency.
SELECT DATE(o.created_at)       AS day,
       o.currency,
       COUNT(*)                 AS orders,
       SUM(o.total)             AS revenue,
       SUM(o.total) / COUNT(*)  AS average_order
FROM orders o
WHERE o.status IN ('paid', 'shipped')
  AND o.created_at >= @week_start
  AND o.created_at < @week_end
GROUP BY DATE(o.created_at), o.currency
ORDER BY day, currency;

-- Customers who signed up this week and ordered at least twice.
SELECT c.id, c.email, COUNT(o.id) AS orders
FROM customers c
JOIN orders o ON o.customer_id = c.id
WHERE c.created_at >= @week_start
GROUP BY c.id, c.email
HAVING COUNT(o.id) >= 2;

-- API keys used this week, by prefix only (the keys themselves are never stored).
SELECT k.prefix, k.name, MAX(r.created_at) AS last_request, COUNT(*) AS requests
FROM api_requests r
JOIN api_keys k ON k.id = r.api_key_id
WHERE r.created_at >= @week_start
GROUP BY k.prefix, k.name
ORDER BY requests DESC
LIMIT 50;

-- Failed logins per source network, to spot credential stuffing.
SELECT INET_NTOA(INET_ATON(ip_address) & 0xFFFFFF00) AS network,
       COUNT(*)                                    AS failures,
       COUNT(DISTINCT email)                       AS accounts
FROM login_attempts
WHERE succeeded = 0 AND created_at >= @week_start
GROUP BY network
HAVING failures > 100
ORDER BY failures DESC;

-- Accounts whose password was not changed for a year.
SELECT id, email, password_changed_at
FROM users
WHERE password_changed_at < NOW() - INTERVAL 365 DAY
  AND is_active = 1;

INSERT INTO report_runs (report, started_at, finished_at, row_count, sha256)
VALUES ('weekly_revenue', NOW(3), NOW(3), 7,
        'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb');

-- Read-only account for the BI tool; its password is set out of band:
--   ALTER USER 'bi_reader'@'%' IDENTIFIED BY '<from the vault>';
CREATE USER IF NOT EXISTS 'bi_reader'@'%' IDENTIFIED WITH caching_sha2_password;
GRANT SELECT ON reports.* TO 'bi_reader'@'%';
