-- Which XLA ops / kernels dominate GPU time? (a TensorFlow/JAX XSpace)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/gpu_ops.sql
.headers on
.mode box
SELECT name, count(*) AS n, round(sum(dur) / 1e3, 1) AS total_us,
       round(100.0 * sum(dur) / (SELECT sum(dur) FROM profile_events('examples/gpu_host.xplane.pb')
                                  WHERE process_name LIKE '/device:GPU%' AND depth = 0), 1) AS pct
  FROM profile_events('examples/gpu_host.xplane.pb')
 WHERE process_name LIKE '/device:GPU%' AND depth = 0
 GROUP BY name ORDER BY total_us DESC LIMIT 5;
