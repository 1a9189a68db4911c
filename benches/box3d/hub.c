// A hub ball (radius r) held by `count` balls of radius 0.1 at 2 m, one spherical joint each,
// anchored `arm` from the hub's centre; gravity only, nothing collides (density 1). Prints the
// largest departure of a spoke from 2 m of the hub over 120 steps (1/60 s, 4 substeps, one
// worker). Build from a Box3D checkout built as ../shared/notes/benchmark-suite.md says:
//   cc -O2 -I include PATH/TO/hub.c build/src/libbox3d.a -lm -lpthread -o hub
#include "box3d/box3d.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void run( int count, float hubRadius, float arm )
{
	b3WorldDef worldDef = b3DefaultWorldDef();
	worldDef.workerCount = 1;
	b3WorldId worldId = b3CreateWorld( &worldDef );
	b3World_EnableSleeping( worldId, false );
	b3ShapeDef shapeDef = b3DefaultShapeDef();
	shapeDef.filter.categoryBits = 2;
	shapeDef.filter.maskBits = ~2u;
	shapeDef.density = 1.0f;
	b3BodyDef bodyDef = b3DefaultBodyDef();
	bodyDef.type = b3_dynamicBody;
	bodyDef.position = (b3Pos){ 0.0f, 5.0f, 0.0f };
	b3BodyId hub = b3CreateBody( worldId, &bodyDef );
	b3Sphere big = { { 0.0f, 0.0f, 0.0f }, hubRadius };
	b3CreateSphereShape( hub, &shapeDef, &big );
	b3Sphere small = { { 0.0f, 0.0f, 0.0f }, 0.1f };
	b3BodyId* spokes = malloc( count * sizeof( b3BodyId ) );
	for ( int k = 0; k < count; ++k )
	{
		float t = ( k + 0.5f ) / count;
		float polar = acosf( 1.0f - 2.0f * t ), turn = 2.39996f * k;
		b3Vec3 d = { sinf( polar ) * cosf( turn ), cosf( polar ), sinf( polar ) * sinf( turn ) };
		bodyDef.position = (b3Pos){ 2.0f * d.x, 5.0f + 2.0f * d.y, 2.0f * d.z };
		spokes[k] = b3CreateBody( worldId, &bodyDef );
		b3CreateSphereShape( spokes[k], &shapeDef, &small );
		b3SphericalJointDef jointDef = b3DefaultSphericalJointDef();
		jointDef.base.bodyIdA = hub;
		jointDef.base.bodyIdB = spokes[k];
		jointDef.base.localFrameA.p = (b3Vec3){ arm * d.x, arm * d.y, arm * d.z };
		jointDef.base.localFrameB.p = (b3Vec3){ ( arm - 2.0f ) * d.x, ( arm - 2.0f ) * d.y, ( arm - 2.0f ) * d.z };
		b3CreateSphericalJoint( worldId, &jointDef );
	}
	float worst = 0.0f;
	int firstBad = -1;
	for ( int step = 0; step < 120; ++step )
	{
		b3World_Step( worldId, 1.0f / 60.0f, 4 );
		b3Pos h = b3Body_GetPosition( hub );
		for ( int k = 0; k < count; ++k )
		{
			b3Pos p = b3Body_GetPosition( spokes[k] );
			float dx = p.x - h.x, dy = p.y - h.y, dz = p.z - h.z;
			float w = fabsf( sqrtf( dx * dx + dy * dy + dz * dz ) - 2.0f );
			if ( w > worst ) worst = w;
			if ( w > 0.05f && firstBad < 0 ) firstBad = step;
		}
	}
	printf( "box3d hub: %d spokes, hub radius %.2f, arm %.2f: worst %.4f m, first bad step %d\n",
			count, hubRadius, arm, worst, firstBad );
	free( spokes );
	b3DestroyWorld( worldId );
}

int main( void )
{
	run( 10, 0.1f, 1.0f );
	run( 30, 0.1f, 1.0f );
	run( 100, 0.1f, 1.0f );
	run( 1100, 0.1f, 1.0f );
	run( 50, 0.1f, 0.1f );
	return 0;
}
