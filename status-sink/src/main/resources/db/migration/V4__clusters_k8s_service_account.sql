-- The Kubernetes service account the cluster's job pods run as (issue 19). Through Workload Identity it is the
-- identity the pods' GCS FUSE volume reads and writes the cluster's bucket with, so it differs per edge project.
-- NULL: the namespace's default service account.
ALTER TABLE clusters
  ADD COLUMN k8s_service_account VARCHAR(253) NULL DEFAULT NULL;
