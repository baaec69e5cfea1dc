# demo_extras.sh (glcm): what scripts/demo.sh shows of a glcm result beyond the
# stored rows, sourced in a subshell with the variables demo.sh's header lists:
# a few rows of the feature table at the WU's map distance, and feature maps
# of each image as PNG (helix-wu glcm map), over the image itself.
# shellcheck shell=bash disable=SC2154  # the variables come from scripts/demo.sh

for i in "${!work_units[@]}"; do
  wu=${work_units[i]} slot=${first_slots[i]}
  params=$example_dir/$wu.params.json
  # The WU's grey levels (the first), map distance, and images: name and file.
  levels=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["levels"][0])' "$params")
  map_distance=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["map_distance"])' "$params")
  mapfile -t images < <(python3 -c 'import json, sys
for image in json.load(open(sys.argv[1]))["images"]: print(image["name"], image["image"])' "$params")

  step "glcm $wu: contrast, entropy and correlation at distance $map_distance, $levels levels (table glcm_features)"
  sqlite3 -header -column "$results_db" \
    "SELECT image, levels, distance, feature, printf('%.6g', min) AS min, printf('%.6g', mean) AS mean,
            printf('%.6g', max) AS max FROM glcm_features
     WHERE levels = $levels AND distance = $map_distance AND feature IN ('contrast', 'entropy', 'correlation')
     ORDER BY feature, image;" | indent

  step "glcm $wu: feature maps, distance $map_distance, $levels levels (helix-wu glcm map)"
  mkdir -p "$kind_out/maps"
  for entry in "${images[@]}"; do
    read -r image file <<<"$entry"
    for feature in entropy contrast; do
      "$helix_wu" glcm map --maps "$slot/maps" --image "$image" --levels "$levels" --feature "$feature" \
        --underlay "$example_dir/$file" --out "$kind_out/maps/${wu}_${image}_$feature.png" | indent
    done
  done
done
look "demo-out/glcm/maps/*.png" "glcm feature maps (one pixel per window, brighter = larger)"
look "demo-out/glcm/<wu>/slot1/features" "the result's table (TSV): levels x distances x features x max/mean/min/range"
