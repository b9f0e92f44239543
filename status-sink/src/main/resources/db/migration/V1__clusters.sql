-- The clusters registry, owned by Falcon. Adding an edge cluster = IAM grant + one INSERT here.
CREATE TABLE clusters (
  id                  VARCHAR(64)  NOT NULL,
  name                VARCHAR(128) NOT NULL,
  project             VARCHAR(128) NOT NULL,
  location            VARCHAR(64)  NOT NULL,
  tpu_type            VARCHAR(32)  NOT NULL,
  gcs_bucket          VARCHAR(255) NOT NULL,
  default_reservation VARCHAR(255) NULL,
  status              ENUM('active', 'maintenance', 'offline') NOT NULL DEFAULT 'active',
  created_at          TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uk_clusters_location_name (project, location, name)
);
