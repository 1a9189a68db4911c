// Box3D's junkyard, washer and convex pile (shared/benchmarks.c), created and stepped as Box3D's benchmark
// does (1/60 s, 4 substeps, one worker, the scene's step function before each step): prints,
// after the scene's steps, the lowest point of a dynamic body's box (the ground's top is at 0
// in both) and the depths of the last step's overlapping contact points (each manifold point's
// negative separation, each contact once): the median, the 99th percentile and the deepest,
// of all and per kind of the other body, with Box3D's contact recycling as it comes (on:
// Box3D's default) or turned off on every body (`norecycle`), to set beside minirigid's
// (`box3d_protocol --lowest` prints the same figures); with `trace`, every 25 steps, the
// overlapping points between two dynamic bodies (`box3d_protocol --trace`). Build against
// Box3D built as ../shared/notes/benchmark-suite.md says, from its checkout:
//   cc -O2 -I include -I . PATH/TO/hull_quality.c build/shared/libshared.a build/src/libbox3d.a -lm -lpthread -o hull_quality
//   ./hull_quality junkyard|washer|convex_pile [norecycle] [trace]
#include "box3d/box3d.h"
#include "shared/benchmarks.h"
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int CompareFloats( const void* a, const void* b )
{
	float x = *(const float*)a, y = *(const float*)b;
	return ( x > y ) - ( x < y );
}

typedef struct Found
{
	b3BodyId* bodies;
	int count, capacity;
} Found;

// Each dynamic body once (a body's shapes are reported one after the other).
static bool Collect( b3ShapeId shapeId, void* context )
{
	Found* found = context;
	b3BodyId body = b3Shape_GetBody( shapeId );
	if ( found->count > 0 && B3_ID_EQUALS( found->bodies[found->count - 1], body ) )
	{
		return true;
	}
	if ( found->count == found->capacity )
	{
		found->capacity = 2 * found->capacity + 64;
		found->bodies = realloc( found->bodies, found->capacity * sizeof( b3BodyId ) );
	}
	found->bodies[found->count++] = body;
	return true;
}

static Found AllBodies( b3WorldId worldId )
{
	Found found = { 0 };
	b3AABB everywhere = { { -1e4f, -1e4f, -1e4f }, { 1e4f, 1e4f, 1e4f } };
	b3World_OverlapAABB( worldId, everywhere, b3DefaultQueryFilter(), Collect, &found );
	return found;
}

// `trace`: after step `step`, the overlapping contact points between two dynamic bodies (each
// contact once), their median, 99th percentile and deepest depth, and how many are deeper than
// 10 cm, as `box3d_protocol --trace` prints minirigid's.
static void Trace( b3WorldId worldId, int step )
{
	Found all = AllBodies( worldId );
	int count = 0, capacity = 0, deep = 0, dataCapacity = 0;
	float* depths = NULL;
	b3ContactData* data = NULL;
	for ( int k = 0; k < all.count; ++k )
	{
		b3BodyId body = all.bodies[k];
		if ( b3Body_GetType( body ) != b3_dynamicBody )
		{
			continue;
		}
		int contactCapacity = b3Body_GetContactCapacity( body );
		if ( contactCapacity > dataCapacity )
		{
			dataCapacity = contactCapacity;
			data = realloc( data, dataCapacity * sizeof( b3ContactData ) );
		}
		int n = b3Body_GetContactData( body, data, contactCapacity );
		for ( int c = 0; c < n; ++c )
		{
			b3BodyId bodyA = b3Shape_GetBody( data[c].shapeIdA );
			b3BodyId bodyB = b3Shape_GetBody( data[c].shapeIdB );
			if ( !B3_ID_EQUALS( bodyA, body ) || b3Body_GetType( bodyB ) != b3_dynamicBody )
			{
				continue;
			}
			for ( int m = 0; m < data[c].manifoldCount; ++m )
			{
				for ( int p = 0; p < data[c].manifolds[m].pointCount; ++p )
				{
					float depth = -data[c].manifolds[m].points[p].separation;
					if ( depth <= 0.0f )
					{
						continue;
					}
					if ( count == capacity )
					{
						capacity = 2 * capacity + 1024;
						depths = realloc( depths, capacity * sizeof( float ) );
					}
					depths[count++] = depth;
					deep += depth > 0.1f;
				}
			}
		}
	}
	qsort( depths, count, sizeof( float ), CompareFloats );
	float median = count > 0 ? depths[(int)( 0.5f * ( count - 1 ) + 0.5f )] : 0.0f;
	float p99 = count > 0 ? depths[(int)( 0.99f * ( count - 1 ) + 0.5f )] : 0.0f;
	float deepest = count > 0 ? depths[count - 1] : 0.0f;
	printf( "  trace,%d,%d points,%.4f,%.4f,%.4f,%d deeper than 0.1\n", step, count, median, p99, deepest, deep );
	free( depths );
	free( data );
	free( all.bodies );
}

int main( int argc, char** argv )
{
	const char* scene = argc > 1 ? argv[1] : "junkyard";
	bool recycle = true, trace = false;
	for ( int k = 2; k < argc; ++k )
	{
		recycle = recycle && strcmp( argv[k], "norecycle" ) != 0;
		trace = trace || strcmp( argv[k], "trace" ) == 0;
	}
	bool junkyard = strcmp( scene, "junkyard" ) == 0;
	bool pile = strcmp( scene, "convex_pile" ) == 0;
	b3WorldDef worldDef = b3DefaultWorldDef();
	worldDef.workerCount = 1;
	if ( junkyard )
	{
		GetJunkyardCapacity( &worldDef.capacity );
	}
	else if ( pile )
	{
		GetConvexPileCapacity( &worldDef.capacity );
	}
	else
	{
		GetWasherCapacity( &worldDef.capacity );
	}
	b3WorldId worldId = b3CreateWorld( &worldDef );
	int steps = junkyard || pile ? 500 : 1000;
	if ( junkyard )
	{
		CreateJunkyard( worldId );
	}
	else if ( pile )
	{
		CreateConvexPile( worldId );
	}
	else
	{
		CreateWasher( worldId );
	}
	if ( !recycle )
	{
		Found all = AllBodies( worldId );
		for ( int k = 0; k < all.count; ++k )
		{
			b3Body_EnableContactRecycling( all.bodies[k], false );
		}
		free( all.bodies );
	}
	for ( int step = 0; step < steps; ++step )
	{
		if ( junkyard )
		{
			StepJunkyard( worldId, step );
		}
		b3World_Step( worldId, 1.0f / 60.0f, 4 );
		if ( trace && ( step + 1 ) % 25 == 0 )
		{
			Trace( worldId, step + 1 );
		}
	}
	Found all = AllBodies( worldId );
	float lowest = FLT_MAX;
	int dynamic = 0, depthCount = 0, depthCapacity = 0;
	float* depths = NULL;
	// The same per what the other body is: static, kinematic, dynamic.
	float* kindDepths[3] = { NULL, NULL, NULL };
	int kindCount[3] = { 0, 0, 0 }, kindCapacity[3] = { 0, 0, 0 };
	b3ContactData* data = NULL;
	int dataCapacity = 0;
	for ( int k = 0; k < all.count; ++k )
	{
		b3BodyId body = all.bodies[k];
		if ( b3Body_GetType( body ) != b3_dynamicBody )
		{
			continue;
		}
		dynamic += 1;
		b3AABB box = b3Body_ComputeAABB( body );
		lowest = box.lowerBound.y < lowest ? box.lowerBound.y : lowest;
		int capacity = b3Body_GetContactCapacity( body );
		if ( capacity > dataCapacity )
		{
			dataCapacity = capacity;
			data = realloc( data, dataCapacity * sizeof( b3ContactData ) );
		}
		int count = b3Body_GetContactData( body, data, capacity );
		for ( int c = 0; c < count; ++c )
		{
			// Each contact once: from the body of its first shape, or of its second where the
			// first is not dynamic (only dynamic bodies are visited).
			b3BodyId bodyA = b3Shape_GetBody( data[c].shapeIdA );
			b3BodyId bodyB = b3Shape_GetBody( data[c].shapeIdB );
			if ( !B3_ID_EQUALS( bodyA, body ) && b3Body_GetType( bodyA ) == b3_dynamicBody )
			{
				continue;
			}
			b3BodyId other = B3_ID_EQUALS( bodyA, body ) ? bodyB : bodyA;
			int kind = b3Body_GetType( other ) == b3_staticBody ? 0 : b3Body_GetType( other ) == b3_kinematicBody ? 1 : 2;
			for ( int m = 0; m < data[c].manifoldCount; ++m )
			{
				const b3Manifold* manifold = data[c].manifolds + m;
				for ( int p = 0; p < manifold->pointCount; ++p )
				{
					float depth = -manifold->points[p].separation;
					if ( depth <= 0.0f )
					{
						continue;
					}
					if ( depthCount == depthCapacity )
					{
						depthCapacity = 2 * depthCapacity + 1024;
						depths = realloc( depths, depthCapacity * sizeof( float ) );
					}
					depths[depthCount++] = depth;
					if ( kindCount[kind] == kindCapacity[kind] )
					{
						kindCapacity[kind] = 2 * kindCapacity[kind] + 1024;
						kindDepths[kind] = realloc( kindDepths[kind], kindCapacity[kind] * sizeof( float ) );
					}
					kindDepths[kind][kindCount[kind]++] = depth;
				}
			}
		}
	}
	qsort( depths, depthCount, sizeof( float ), CompareFloats );
	float median = 0.0f, p99 = 0.0f, deepest = 0.0f;
	if ( depthCount > 0 )
	{
		median = depths[(int)( 0.5f * ( depthCount - 1 ) + 0.5f )];
		p99 = depths[(int)( 0.99f * ( depthCount - 1 ) + 0.5f )];
		deepest = depths[depthCount - 1];
	}
	printf( "%s recycling %s: %d dynamic bodies, lowest %.4f m; contact depths (%d points) median %.4f, "
			"p99 %.4f, deepest %.4f m\n",
			scene, recycle ? "on" : "off", dynamic, lowest, depthCount, median, p99, deepest );
	const char* kindNames[3] = { "static", "kinematic", "dynamic" };
	for ( int k = 0; k < 3; ++k )
	{
		int n = kindCount[k];
		qsort( kindDepths[k], n, sizeof( float ), CompareFloats );
		float m = n > 0 ? kindDepths[k][(int)( 0.5f * ( n - 1 ) + 0.5f )] : 0.0f;
		float q = n > 0 ? kindDepths[k][(int)( 0.99f * ( n - 1 ) + 0.5f )] : 0.0f;
		float d = n > 0 ? kindDepths[k][n - 1] : 0.0f;
		printf( "  with a %s body: %d points, median %.4f, p99 %.4f, deepest %.4f m\n", kindNames[k], n, m, q, d );
		free( kindDepths[k] );
	}
	free( depths );
	free( all.bodies );
	free( data );
	b3DestroyWorld( worldId );
	return 0;
}
