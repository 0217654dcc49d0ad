// C++ Recast's per-tile build times: every tile of a level built as RecastDemo's
// Sample_TileMesh::buildTileMesh builds one (a border of walkableRadius + 3 cells, the
// triangles whose x-z box reaches the bordered tile, detail mesh included), ROUNDS times,
// the clock read once after rcBuildCompactHeightfield. "pre" is rasterize .. compact
// (rcCreateHeightfield, rcMarkWalkableTriangles, rcRasterizeTriangles, the three filters,
// rcBuildCompactHeightfield); "post" is what a DetourTileCache-style rebuild from a cached
// compact heightfield re-runs: rcErodeWalkableArea, distance field and watershed regions,
// contours, polygon mesh, detail mesh.
//
// Uses recast_bench.cpp (../shared/peers/recast) for OBJ loading, settings and the clock;
// tests/recastpeer.py's recast_driver_path builds it there:
//   R=../shared/peers/recast; g++ -O2 -DNDEBUG -DRC_DISABLE_ASSERTS -fno-rtti -fno-exceptions \
//     -I$R -I$R/Recast/Include -I$R/Detour/Include recast_tiles.cpp $R/Recast/Source/*.cpp \
//     $R/Detour/Source/*.cpp -o recast_tiles
// Run: recast_tiles LEVEL.obj TILE_SIZE [ROUNDS [cell_size]]
// Prints one line per tile with triangles,
//   tile TX TZ POLYS PRE_MS POST_MS TOTAL_MS      (medians over the rounds)
// and a last line
//   tiles TILES_X TILES_Z BUILT WITH_POLYS
// (BUILT: tiles with triangles, WITH_POLYS: tiles whose polygon mesh has polygons).
#define main bench_main
#include "recast_bench.cpp"
#undef main

struct TileTimes
{
	double preMs = 0, postMs = 0;
	int polys = 0;
};

// One bordered tile from its triangles `picked` (Sample_TileMesh::buildTileMesh's steps).
static bool buildOneTile(const ObjMesh& mesh, const std::vector<int>& picked, const rcConfig& base,
                         const float* tbmin, const float* tbmax, rcContext* ctx, TileTimes& out)
{
	rcConfig config = base;
	rcVcopy(config.bmin, tbmin);
	rcVcopy(config.bmax, tbmax);
	const int ntris = (int)picked.size() / 3;
	const double t0 = stageClockMs();
	rcHeightfield* hf = rcAllocHeightfield();
	if (!rcCreateHeightfield(ctx, *hf, config.width, config.height, config.bmin, config.bmax, config.cs, config.ch))
		return false;
	std::vector<unsigned char> areas(ntris > 0 ? ntris : 1, 0);
	rcMarkWalkableTriangles(ctx, config.walkableSlopeAngle, mesh.verts.data(), mesh.vertCount(), picked.data(), ntris,
	                        areas.data());
	if (!rcRasterizeTriangles(ctx, mesh.verts.data(), mesh.vertCount(), picked.data(), areas.data(), ntris, *hf,
	                          config.walkableClimb))
		return false;
	rcFilterLowHangingWalkableObstacles(ctx, config.walkableClimb, *hf);
	rcFilterLedgeSpans(ctx, config.walkableHeight, config.walkableClimb, *hf);
	rcFilterWalkableLowHeightSpans(ctx, config.walkableHeight, *hf);
	rcCompactHeightfield* chf = rcAllocCompactHeightfield();
	if (!rcBuildCompactHeightfield(ctx, config.walkableHeight, config.walkableClimb, *hf, *chf))
		return false;
	rcFreeHeightField(hf);
	const double t1 = stageClockMs();
	bool ok = rcErodeWalkableArea(ctx, config.walkableRadius, *chf) && rcBuildDistanceField(ctx, *chf)
	          && rcBuildRegions(ctx, *chf, config.borderSize, config.minRegionArea, config.mergeRegionArea);
	rcContourSet* cset = rcAllocContourSet();
	rcPolyMesh* pmesh = rcAllocPolyMesh();
	rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
	ok = ok && rcBuildContours(ctx, *chf, config.maxSimplificationError, config.maxEdgeLen, *cset);
	ok = ok && rcBuildPolyMesh(ctx, *cset, config.maxVertsPerPoly, *pmesh);
	// Sample_TileMesh stops here for a tile without polygons
	ok = ok && (pmesh->nverts == 0
	            || rcBuildPolyMeshDetail(ctx, *pmesh, *chf, config.detailSampleDist, config.detailSampleMaxError, *dmesh));
	const double t2 = stageClockMs();
	out.preMs = t1 - t0;
	out.postMs = t2 - t1;
	out.polys = pmesh->npolys;
	rcFreeCompactHeightfield(chf);
	rcFreeContourSet(cset);
	rcFreePolyMesh(pmesh);
	rcFreePolyMeshDetail(dmesh);
	return ok;
}

int main(int argc, char** argv)
{
	if (argc < 3)
	{
		fprintf(stderr, "usage: recast_tiles LEVEL.obj TILE_SIZE [ROUNDS [cell_size]]\n");
		return 2;
	}
	Settings s;
	const int tileSize = atoi(argv[2]);
	const int rounds = argc > 3 ? atoi(argv[3]) : 5;
	if (argc > 4) s.cellSize = (float)atof(argv[4]);
	if (tileSize <= 0 || rounds <= 0) return 2;
	ObjMesh mesh;
	if (!loadObj(argv[1], mesh)) return 1;
	rcContext ctx(false);

	float bmin[3], bmax[3];
	rcCalcBounds(mesh.verts.data(), mesh.vertCount(), bmin, bmax);
	rcConfig config;
	memset(&config, 0, sizeof(config));
	config.cs = s.cellSize;
	config.ch = s.cellHeight;
	config.walkableSlopeAngle = s.agentMaxSlope;
	config.walkableHeight = (int)ceilf(s.agentHeight / config.ch);
	config.walkableClimb = (int)floorf(s.agentMaxClimb / config.ch);
	config.walkableRadius = (int)ceilf(s.agentRadius / config.cs);
	config.maxEdgeLen = (int)(s.edgeMaxLen / s.cellSize);
	config.maxSimplificationError = s.edgeMaxError;
	config.minRegionArea = (int)rcSqr(s.regionMinSize);
	config.mergeRegionArea = (int)rcSqr(s.regionMergeSize);
	config.maxVertsPerPoly = s.vertsPerPoly;
	config.tileSize = tileSize;
	config.borderSize = config.walkableRadius + 3;
	config.width = tileSize + config.borderSize * 2;
	config.height = tileSize + config.borderSize * 2;
	config.detailSampleDist = s.detailSampleDist < 0.9f ? 0 : s.cellSize * s.detailSampleDist;
	config.detailSampleMaxError = s.cellHeight * s.detailSampleMaxError;
	int gw = 0, gh = 0;
	rcCalcGridSize(bmin, bmax, config.cs, &gw, &gh);
	const int tw = (gw + tileSize - 1) / tileSize, th = (gh + tileSize - 1) / tileSize;
	const float tcs = tileSize * config.cs;

	int built = 0, withPolys = 0;
	for (int ty = 0; ty < th; ++ty)
		for (int tx = 0; tx < tw; ++tx)
		{
			float tbmin[3], tbmax[3];
			tbmin[0] = bmin[0] + tx * tcs; tbmin[1] = bmin[1]; tbmin[2] = bmin[2] + ty * tcs;
			tbmax[0] = bmin[0] + (tx + 1) * tcs; tbmax[1] = bmax[1]; tbmax[2] = bmin[2] + (ty + 1) * tcs;
			tbmin[0] -= config.borderSize * config.cs; tbmin[2] -= config.borderSize * config.cs;
			tbmax[0] += config.borderSize * config.cs; tbmax[2] += config.borderSize * config.cs;
			// the triangles whose x-z box reaches the bordered tile (Sample_TileMesh asks its
			// chunky mesh, built once at load, for a superset of these; rasterizing clips the rest)
			std::vector<int> picked;
			for (int t = 0; t < mesh.triCount(); ++t)
			{
				float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
				for (int k = 0; k < 3; ++k)
				{
					const float* v = &mesh.verts[mesh.tris[t * 3 + k] * 3];
					lo[0] = rcMin(lo[0], v[0]); hi[0] = rcMax(hi[0], v[0]);
					lo[1] = rcMin(lo[1], v[2]); hi[1] = rcMax(hi[1], v[2]);
				}
				if (hi[0] < tbmin[0] || lo[0] > tbmax[0] || hi[1] < tbmin[2] || lo[1] > tbmax[2]) continue;
				picked.insert(picked.end(), &mesh.tris[t * 3], &mesh.tris[t * 3] + 3);
			}
			if (picked.empty()) continue;
			std::vector<double> pre, post, total;
			TileTimes tt;
			for (int r = 0; r < rounds; ++r)
			{
				if (!buildOneTile(mesh, picked, config, tbmin, tbmax, &ctx, tt))
				{
					fprintf(stderr, "recast_tiles: tile %d %d failed\n", tx, ty);
					return 1;
				}
				pre.push_back(tt.preMs);
				post.push_back(tt.postMs);
				total.push_back(tt.preMs + tt.postMs);
			}
			++built;
			if (tt.polys > 0) ++withPolys;
			printf("tile %d %d %d %.4f %.4f %.4f\n", tx, ty, tt.polys, median(pre), median(post), median(total));
		}
	printf("tiles %d %d %d %d\n", tw, th, built, withPolys);
	return 0;
}
